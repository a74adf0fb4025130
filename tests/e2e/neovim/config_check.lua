-- Drives the README's Neovim 0.7 configuration (loaded with -u): waits for the lenses the
-- configuration asks for once the server reports "loaded" (this script never asks itself),
-- then hovers and "clicks" the lens above `work` (codelens.run), which the configuration turns
-- into incoming calls in the quickfix list. Writes what it saw as JSON to $GMONLENS_RESULT.
local env = vim.env
local seen = {}
local function finish(code)
  local f = io.open(env.GMONLENS_RESULT, "w")
  f:write(vim.fn.json_encode(seen))
  f:close()
  vim.cmd(code == 0 and "qa!" or "cq!")
end

local bufnr = vim.api.nvim_get_current_buf()
if not vim.wait(120000, function() return #vim.lsp.codelens.get(bufnr) > 0 end, 100) then
  seen.error = "no lenses"; return finish(1)
end
seen.lenses = {}
for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
  table.insert(seen.lenses, { line = lens.range.start.line, title = lens.command and lens.command.title or "" })
end

local line, char = tonumber(env.GMONLENS_LINE), tonumber(env.GMONLENS_CHAR)
local res = vim.lsp.buf_request_sync(bufnr, "textDocument/hover", {
  textDocument = { uri = vim.uri_from_bufnr(bufnr) }, position = { line = line, character = char },
}, 30000)
for _, r in pairs(res or {}) do
  seen.hover = r.result and r.result.contents and r.result.contents.value or ""
end

vim.fn.setqflist({})
vim.api.nvim_win_set_cursor(0, { line + 1, 0 })
vim.lsp.codelens.run()
vim.wait(30000, function() return #vim.fn.getqflist() > 0 end, 100)
seen.quickfix = {}
for _, item in ipairs(vim.fn.getqflist()) do
  table.insert(seen.quickfix, { lnum = item.lnum, text = item.text })
end
vim.wait(10000, function() return #vim.lsp.codelens.get(bufnr) > 0 end, 100)
seen.lenses_after_click = #vim.lsp.codelens.get(bufnr)

-- :GmonlensDisasm on the routine's name: its listing in a new buffer (from the source's window:
-- the lens click opened the quickfix window)
vim.fn.win_gotoid(vim.fn.bufwinid(bufnr))
vim.api.nvim_win_set_cursor(0, { line + 1, char })
vim.cmd("GmonlensDisasm")
vim.wait(30000, function() return vim.api.nvim_get_current_buf() ~= bufnr end, 100)
local listing = vim.api.nvim_buf_get_lines(vim.api.nvim_get_current_buf(), 0, -1, false)
seen.disasm = table.concat(listing, "\n")
seen.disasm_modifiable = vim.bo.modifiable

-- :GmonlensRecord (the configuration's, in a folder it trusts): records `./build/app 300` through
-- gmonlens/record; once the folder is reloaded the lenses show the new run (300 calls, not 400)
local said = {}
local notify = vim.notify
vim.notify = function(msg, level, opts)
  table.insert(said, msg)
  return notify(msg, level, opts)
end
vim.fn.win_gotoid(vim.fn.bufwinid(bufnr))
vim.cmd("GmonlensRecord ./build/app 300")
vim.wait(120000, function()
  for _, m in ipairs(said) do
    if m:find("gmonlens record: .*loaded") or m:find("ERROR") then return true end
  end
  return false
end, 100)
seen.record_messages = said
local function record_lens()
  for _, lens in ipairs(vim.lsp.codelens.get(bufnr)) do
    if lens.range.start.line == line and lens.command and lens.command.title:find("300 calls") then
      return lens.command.title
    end
  end
end
vim.wait(60000, function() return record_lens() ~= nil end, 100)
seen.lens_after_record = record_lens() or ""
finish(0)
