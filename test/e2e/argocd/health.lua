-- Runs an Argo CD health script on an object as Argo CD does, and prints "<status>\t<message>".
-- Usage: lua5.1 health.lua SCRIPT.lua OBJECT.json
-- Argo CD (util/lua) runs a custom health script with the global `obj`, the base library,
-- table, package and a safe os (time, date, clock), but not the string library (not even as
-- methods on strings): the script gets exactly that here, so one that uses more fails here too.
-- gopher-lua implements Lua 5.1, hence lua5.1.
local json = require("dkjson")

local script_path, object_path = arg[1], arg[2]
local f = assert(io.open(object_path, "r"))
local text = f:read("*a")
f:close()
local object, _, err = json.decode(text)
if object == nil then
  io.stderr:write("cannot parse " .. object_path .. ": " .. tostring(err) .. "\n")
  os.exit(2)
end

local chunk, load_error = loadfile(script_path)
if chunk == nil then
  io.stderr:write(load_error .. "\n")
  os.exit(2)
end
local env = {
  obj = object,
  assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs, pcall = pcall,
  print = print, rawequal = rawequal, rawget = rawget, rawset = rawset, select = select,
  tonumber = tonumber, tostring = tostring, type = type, unpack = unpack, xpcall = xpcall,
  table = table,
  os = {time = os.time, date = os.date, clock = os.clock},
}
setfenv(chunk, env)
local string_methods = getmetatable("").__index
getmetatable("").__index = {}
local ok, hs = pcall(chunk)
getmetatable("").__index = string_methods
if not ok then
  io.stderr:write("health script failed: " .. tostring(hs) .. "\n")
  os.exit(1)
end
if type(hs) ~= "table" then
  io.stderr:write("health script returned " .. type(hs) .. ", not a table\n")
  os.exit(1)
end
local valid = {Healthy = true, Progressing = true, Degraded = true, Suspended = true,
               Missing = true, Unknown = true}
if not valid[hs.status] then
  io.stderr:write("invalid health status " .. tostring(hs.status) .. "\n")
  os.exit(1)
end
io.write(hs.status, "\t", tostring(hs.message or ""), "\n")
