-- The purchase flow of agents.json, once per pass, by one agent per connection (run it with
-- as many threads as connections): create a session, search, detail, cart.add, checkout, end
-- the session. Arguments: the API prefix, a search term, the item to buy.
dofile("bench/wrk/common.lua")

local api, term, item, step, token = nil, nil, nil, 0, ""
local JSON = "application/json"

function init(args)
  api, term, item = args[1], args[2], args[3]
end

function request()
  local headers = {["Authorization"] = "Bearer " .. token, ["Content-Type"] = JSON}
  if step == 0 then
    return wrk.format("POST", api .. "/session", {["Content-Type"] = JSON}, '{"agent_name": "bench"}')
  elseif step == 1 then
    return wrk.format("GET", api .. "/search?q=" .. term .. "&limit=5", headers)
  elseif step == 2 then
    return wrk.format("GET", api .. "/detail/" .. item, headers)
  elseif step == 3 then
    return wrk.format("POST", api .. "/cart/add", headers, '{"item_id": "' .. item .. '", "quantity": 1}')
  elseif step == 4 then
    return wrk.format("POST", api .. "/checkout", headers)
  end
  return wrk.format("DELETE", api .. "/session", headers)
end

function response(status, headers, body)
  count(status)
  if step == 0 then
    token = string.match(body, '"session_token":"([^"]+)"') or ""
  end
  step = (step + 1) % 6
end
