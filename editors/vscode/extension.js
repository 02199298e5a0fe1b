// Starts `idlc lsp` for .idl, .enc and .map files (the path of idlc: the setting `idlc.path`).
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("idlc").get("path", "idlc");
  const server = { command, args: ["lsp"] };
  client = new LanguageClient(
    "idlc",
    "idlc",
    { run: server, debug: server },
    {
      documentSelector: ["idlc-idl", "idlc-enc", "idlc-map"].map((language) => ({
        scheme: "file",
        language,
      })),
    },
  );
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
