/**
 * The extension's own commands: those of package.json and those only its links and lenses run.
 * None shares a name with a command the server runs (protocol.ts SERVER_COMMANDS):
 * vscode-languageclient registers those under their own names. Pure: no `vscode` import.
 */

export const COMMANDS = {
  reloadProfile: "gmonlens.reloadProfile",
  showReport: "gmonlens.showReport",
  goToHottest: "gmonlens.goToHottest",
  showCallGraph: "gmonlens.showCallGraph",
  /** the server's command is gmonlens.showDisassembly */
  openDisassembly: "gmonlens.openDisassembly",
  restartServer: "gmonlens.restartServer",
  pinProfileAsBaseline: "gmonlens.pinProfileAsBaseline",
  clearProfileBaseline: "gmonlens.clearProfileBaseline",
  showChanges: "gmonlens.showChanges",
  /** a quick pick of the `gmonlens test` folder's tests (server: gmonlens.tests, gmonlens.selectTest) */
  pickTest: "gmonlens.pickTest",
  showOutput: "gmonlens.showOutput",
  toggleLineHeat: "gmonlens.toggleLineHeat",
  recordProfile: "gmonlens.recordProfile",
  /** the server's lens command gmonlens.showCallers, pointed at VS Code's call hierarchy */
  peekCallers: "gmonlens.peekCallers",
  /** a hover's link to a listing document */
  openListing: "gmonlens.openListing",
} as const;
