-- wrk with N requests per write (wrk's own examples/scripts/pipeline.lua, with N as an
-- argument): wrk -s bench/wrk-pipeline.lua URL -- N. wrk sends the N together and the next N once
-- all are answered (a batch), where loadtest sends one more as each response comes back.
init = function(args)
  local depth = tonumber(args[1] or "1")
  local r = {}
  for i = 1, depth do r[i] = wrk.format(nil, "/") end
  req = table.concat(r)
end

request = function()
  return req
end
