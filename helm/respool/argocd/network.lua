-- Argo CD health of a respool.io Network (base functions and table only, as Argo CD allows).
local hs = {status = "Progressing", message = "Waiting for the operator to report the network"}
if obj.status == nil or obj.status.observedGeneration == nil then
  return hs
end
if obj.metadata.generation ~= nil and obj.status.observedGeneration < obj.metadata.generation then
  hs.message = "Waiting for the operator to observe generation " .. obj.metadata.generation
  return hs
end
local ready = nil
if obj.status.conditions ~= nil then
  for _, c in ipairs(obj.status.conditions) do
    if c.type == "Ready" then
      ready = c
    end
  end
end
if ready == nil then
  return hs
end
local message = ready.reason
if ready.message ~= nil and ready.message ~= "" then
  message = ready.reason .. ": " .. ready.message
end
if ready.status == "True" then
  hs.status = "Healthy"
  hs.message = "CIDR " .. tostring(obj.status.cidr)
  return hs
end
hs.message = message
-- InUse: the network is being deleted and waits for the pools that name it.
if ready.reason == "InUse" then
  return hs
end
-- CIDRConflict, TooManyNetworks, InvalidSpec: nothing changes until the spec or the other
-- networks do.
hs.status = "Degraded"
return hs
