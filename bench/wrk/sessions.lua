-- Calls of a capability that needs a session, spread over many sessions made beforehand.
-- Arguments: tokens file (one token a line), method, path, and for POST a comma-separated list
-- of item ids: the body adds one of them, the next item on each pass over the sessions.
dofile("bench/wrk/common.lua")

local tokens, items, method, path, sent = {}, {}, nil, nil, 0

function init(args)
  for line in io.lines(args[1]) do table.insert(tokens, line) end
  method, path = args[2], args[3]
  for item in string.gmatch(args[4] or "", "[^,]+") do table.insert(items, item) end
  sent = thread_number * 7  -- each thread starts at another session
end

function request()
  sent = sent + 1
  local headers = {["Authorization"] = "Bearer " .. tokens[sent % #tokens + 1]}
  if method ~= "POST" then
    return wrk.format(method, path, headers)
  end
  headers["Content-Type"] = "application/json"
  local item = items[math.floor(sent / #tokens) % #items + 1]
  return wrk.format(method, path, headers, '{"item_id": "' .. item .. '", "quantity": 1}')
end

function response(status)
  count(status)
end
