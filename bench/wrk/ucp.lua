-- UCP checkout sessions with the conformance suite's headers: a fresh idempotency-key and
-- request-id (UUIDs, unique per run, thread and request) on every call.
-- Arguments: "create", the checkout-sessions path, the platform profile URL, a file holding the
-- create body; or "update", the same path and URL, and a file of checkout sessions made
-- beforehand (bench/ucp_peer.py, make_checkouts: an id, a tab, the update body with
-- __QUANTITY__), updated in turn, the quantity 1 or 2 on alternate passes over them.
dofile("bench/wrk/common.lua")

local mode, path, agent, body, checkouts, sent, run = nil, nil, nil, nil, {}, 0, 0

function init(args)
  mode, path, agent = args[1], args[2], 'profile="' .. args[3] .. '"'
  if mode == "create" then
    body = io.open(args[4]):read("*a")
  else
    for line in io.lines(args[4]) do
      local id, update = string.match(line, "([^\t]+)\t(.+)")
      table.insert(checkouts, {id = id, body = update})
    end
  end
  math.randomseed(os.time() * 100 + thread_number)
  run = math.random(0, 0xffff)
end

local function uuid()
  return string.format("%08x-%04x-4%03x-8%03x-%012x", os.time(), run, thread_number % 0x1000,
                       math.random(0, 0xfff), sent)
end

function request()
  sent = sent + 1
  local headers = {["Content-Type"] = "application/json", ["UCP-Agent"] = agent, ["request-signature"] = "test",
                   ["idempotency-key"] = uuid(), ["request-id"] = uuid()}
  if mode == "create" then
    return wrk.format("POST", path, headers, body)
  end
  local checkout = checkouts[(sent + thread_number * 7) % #checkouts + 1]
  local update = string.gsub(checkout.body, "__QUANTITY__", tostring(math.floor(sent / #checkouts) % 2 + 1))
  return wrk.format("PUT", path .. "/" .. checkout.id, headers, update)
end

function response(status)
  count(status)
end
