-- The same GET again and again (the URL given to wrk). With the argument "counted" it also
-- counts answers per second and outside 2xx (the sustained runs).
dofile("bench/wrk/common.lua")

function init(args)
  if args[1] == "counted" then
    response = function(status) count(status) end
  end
end
