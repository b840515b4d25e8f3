-- tools/call of one tool on the MCP server, spread over MCP sessions opened beforehand (initialize).
-- Arguments: sessions file (one Mcp-Session-Id a line), tool name, its arguments as JSON text.
dofile("bench/wrk/common.lua")

local sessions, body, sent = {}, nil, 0

function init(args)
  for line in io.lines(args[1]) do table.insert(sessions, line) end
  body = '{"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {"name": "' .. args[2] ..
    '", "arguments": ' .. args[3] .. '}}'
  sent = thread_number * 7  -- each thread starts at another session
end

function request()
  sent = sent + 1
  return wrk.format("POST", nil, {
    ["Content-Type"] = "application/json",
    ["Accept"] = "application/json, text/event-stream",
    ["MCP-Protocol-Version"] = "2025-11-25",
    ["Mcp-Session-Id"] = sessions[sent % #sessions + 1],
  }, body)
end

function response(status, headers, body)
  -- A tool's refusal is a 200 too: count it as a failure, as a refused agent API call would be.
  if status == 200 and string.find(body, '"isError":true', 1, true) then status = 500 end
  count(status)
end
