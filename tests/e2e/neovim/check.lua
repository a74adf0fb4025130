-- Drives gmonlens serve through Neovim's built-in LSP client (0.7 API): lenses, hover, call
-- hierarchy, line heat. Writes what it saw as JSON to $GMONLENS_RESULT; exits non-zero on a time-out.
local env = vim.env
local seen = { statuses = {} }
local function finish(code)
  local f = io.open(env.GMONLENS_RESULT, "w")
  f:write(vim.fn.json_encode(seen))
  f:close()
  vim.cmd(code == 0 and "qa!" or "cq!")
end

local root = env.GMONLENS_ROOT
local id = vim.lsp.start_client({
  name = "gmonlens",
  cmd = { env.GMONLENS_PYTHON, "-m", "gmonlens_lsp", "serve", "--stdio" },
  root_dir = root,
  workspace_folders = { { uri = vim.uri_from_fname(root), name = "ws" } },
  handlers = {
    ["gmonlens/status"] = function(_, result) table.insert(seen.statuses, result.state) end,
  },
})
local bufnr = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(bufnr, id)
local client = vim.lsp.get_client_by_id(id)
if not vim.wait(30000, function() return client.initialized end, 50) then
  seen.error = "not initialized"; return finish(1)
end
local loaded = function()
  for _, s in ipairs(seen.statuses) do if s == "loaded" then return true end end
  return false
end
if not vim.wait(60000, loaded, 50) then seen.error = "profile not loaded"; return finish(1) end

local doc = { uri = vim.uri_from_bufnr(bufnr) }
local function request(method, params)
  local res, err = vim.lsp.buf_request_sync(bufnr, method, params, 30000)
  if not res then seen.error = method .. ": " .. tostring(err); finish(1) end
  return res[id] and res[id].result
end

-- what Neovim renders: codelens.refresh() then codelens.get()
vim.lsp.codelens.refresh()
vim.wait(30000, function() return #vim.lsp.codelens.get(bufnr) > 0 end, 50)
seen.lenses = {}
for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
  table.insert(seen.lenses, { line = lens.range.start.line, title = lens.command and lens.command.title or "" })
end

local pos = { line = tonumber(env.GMONLENS_LINE), character = tonumber(env.GMONLENS_CHAR) }
local hover = request("textDocument/hover", { textDocument = doc, position = pos })
seen.hover = hover and hover.contents and hover.contents.value or ""

local items = request("textDocument/prepareCallHierarchy", { textDocument = doc, position = pos })
seen.item = items and items[1] and items[1].name or ""
if items and items[1] then
  local incoming = request("callHierarchy/incomingCalls", { item = items[1] })
  seen.callers = {}
  for _, call in ipairs(incoming or {}) do
    table.insert(seen.callers, { name = call.from.name, line = call.fromRanges[1].start.line })
  end
end
-- line heat: Neovim 0.7 renders no inlay hints, but its client carries any request
local heat = request("gmonlens/lineHeat", { textDocument = doc })
seen.heat = {}
for _, l in ipairs(heat and heat.lines or {}) do
  table.insert(seen.heat, { line = l.line, routine = l.routine, seconds = l.seconds })
end
local hints = request("textDocument/inlayHint", {
  textDocument = doc, range = { start = { line = 0, character = 0 }, ["end"] = { line = 1000, character = 0 } },
})
seen.hints = {}
for _, h in ipairs(hints or {}) do table.insert(seen.hints, { line = h.position.line, label = h.label }) end
vim.lsp.stop_client(id)
finish(0)
