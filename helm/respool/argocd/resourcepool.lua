-- Argo CD health of a respool.io ResourcePool. Argo CD runs custom health scripts without the
-- string library: only base functions and table are used here.
local hs = {status = "Progressing", message = "Waiting for the operator to report the pool"}
if obj.status == nil or obj.status.observedGeneration == nil then
  return hs
end
if obj.metadata.generation ~= nil and obj.status.observedGeneration < obj.metadata.generation then
  hs.message = "Waiting for the operator to observe generation " .. obj.metadata.generation
  return hs
end
local conditions = {}
if obj.status.conditions ~= nil then
  for _, c in ipairs(obj.status.conditions) do
    conditions[c.type] = c
  end
end
local ready = conditions["Ready"]
local degraded = conditions["Degraded"]
local phase = obj.status.phase
local function say(status, condition, fallback)
  hs.status = status
  if condition ~= nil and condition.message ~= nil and condition.message ~= "" then
    hs.message = condition.reason .. ": " .. condition.message
  else
    hs.message = fallback
  end
  return hs
end
-- What does not get better without a change to the spec or to the cluster.
if phase == "Failed" or (ready ~= nil and ready.reason == "InvalidSpec") then
  return say("Degraded", ready, "The pool failed")
end
if phase == "Abnormal" then
  return say("Degraded", ready, "No node of the pool is available")
end
if degraded ~= nil and degraded.status == "True" then
  return say("Degraded", degraded, "Some nodes of the pool are abnormal")
end
if phase == "Running" and ready ~= nil and ready.status == "True" then
  return say("Healthy", ready, "The pool is running")
end
-- Creating, Scaling, Upgrading, Deleting, waiting for free nodes or for its Network.
local progressing = conditions["Progressing"]
if progressing ~= nil and progressing.status == "True" then
  return say("Progressing", progressing, "The pool is " .. tostring(phase))
end
return say("Progressing", ready, "The pool is " .. tostring(phase))
