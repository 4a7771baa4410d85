-- Argo CD health of a respool.io NodeOperation (base functions and table only, as Argo CD
-- allows): a NodeOperation is one task that ends Succeeded, Failed or Rejected; a preview
-- (spec.preview) ends Previewed: it did what was asked, decide and report.
local hs = {status = "Progressing", message = "Waiting for the operator to admit the operation"}
if obj.status == nil or obj.status.phase == nil then
  return hs
end
local phase = obj.status.phase
local message = phase
if obj.status.reason ~= nil and obj.status.reason ~= "" then
  message = phase .. " (" .. obj.status.reason .. ")"
end
if obj.status.message ~= nil and obj.status.message ~= "" then
  message = message .. ": " .. obj.status.message
end
hs.message = message
if phase == "Succeeded" or phase == "Previewed" then
  hs.status = "Healthy"
elseif phase == "Failed" or phase == "Rejected" then
  hs.status = "Degraded"
end
-- Pending (waiting for its turn or a budget) and Running stay Progressing.
return hs
