//! `idlc lsp`: a language server (LSP 3.17 over stdio) for the three languages, on
//! rust-analyzer's `lsp-server` crate: one synchronous loop that answers each message in turn
//! with the compiler's own stages (the same parsers, resolver and formatter as the CLI).
//!
//! What it does: diagnostics of all three languages, pushed (`publishDiagnostics`) after every
//! open, change and save, for every file of the document's project, with the other files'
//! locations as related information; formatting (what `idlc fmt` writes); document symbols.
//! A document's project is the `idlc.toml` at the workspace's root (each side compiled as
//! `idlc check` does), else the files beside it and the open documents ([`project`]). No input stops it: a compilation that panicked would
//! be a bug of idlc, and is caught and reported in the log instead.
//!
//! Behind the feature `lsp`, which only the package idlc-cli turns on.

pub mod diagnostics;
pub mod project;
pub mod symbols;
pub mod text;

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::error::Error;
use std::path::{Path, PathBuf};

use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{DocumentSymbolRequest, Formatting, Request as _};
use lsp_types::{
    DocumentFormattingParams, DocumentSymbolParams, DocumentSymbolResponse, InitializeParams,
    OneOf, PublishDiagnosticsParams, ServerCapabilities, ServerInfo, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextEdit, Url,
};
use serde::de::DeserializeOwned;

use crate::fmt::language_of;
use crate::load::{FileSystem, RealFs};
use text::LineIndex;

/// Serves one client on stdin / stdout until it says `exit`.
pub fn run() -> Result<(), Box<dyn Error + Send + Sync>> {
    let (connection, threads) = Connection::stdio();
    let (id, params) = connection.initialize_start()?;
    let params: InitializeParams = serde_json::from_value(params)?;
    let result = serde_json::json!({
        "capabilities": capabilities(),
        "serverInfo": ServerInfo { name: "idlc".into(), version: Some(env!("CARGO_PKG_VERSION").into()) },
    });
    connection.initialize_finish(id, result)?;
    let mut server = Server::new(root(&params));
    for message in &connection.receiver {
        match message {
            Message::Request(request) => {
                if connection.handle_shutdown(&request)? {
                    break;
                }
                connection
                    .sender
                    .send(Message::Response(server.request(request)))?;
            }
            Message::Notification(notification) => {
                for out in server.notification(notification) {
                    connection.sender.send(Message::Notification(out))?;
                }
            }
            Message::Response(_) => {}
        }
    }
    drop(connection);
    threads.join()?;
    Ok(())
}

/// What the server offers.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    }
}

/// The workspace's root folder, if the client named one.
#[allow(deprecated)] // `root_uri`: older clients send only it.
fn root(params: &InitializeParams) -> Option<PathBuf> {
    params
        .workspace_folders
        .as_ref()
        .and_then(|folders| folders.first())
        .map(|folder| &folder.uri)
        .or(params.root_uri.as_ref())
        .and_then(|uri| uri.to_file_path().ok())
}

/// The server's state: the open documents.
struct Server {
    root: Option<PathBuf>,
    /// The open documents' text, by canonical path.
    open: HashMap<PathBuf, String>,
    /// The files diagnostics were last published for, to clear them when they are gone.
    published: BTreeSet<Url>,
}

impl Server {
    fn new(root: Option<PathBuf>) -> Self {
        Server {
            root,
            open: HashMap::new(),
            published: BTreeSet::new(),
        }
    }

    fn request(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        let result = match request.method.as_str() {
            Formatting::METHOD => params::<DocumentFormattingParams>(request)
                .map(|p| json(self.formatting(&p.text_document.uri))),
            DocumentSymbolRequest::METHOD => params::<DocumentSymbolParams>(request)
                .map(|p| json(self.symbols(&p.text_document.uri))),
            other => {
                return Response::new_err(
                    id,
                    ErrorCode::MethodNotFound as i32,
                    format!("idlc lsp does not handle `{other}`"),
                );
            }
        };
        match result {
            Ok(value) => Response::new_ok(id, value),
            Err(message) => Response::new_err(id, ErrorCode::InvalidParams as i32, message),
        }
    }

    fn notification(&mut self, notification: Notification) -> Vec<Notification> {
        let changed = match notification.method.as_str() {
            DidOpenTextDocument::METHOD => notification
                .extract::<lsp_types::DidOpenTextDocumentParams>(DidOpenTextDocument::METHOD)
                .ok()
                .map(|p| {
                    self.set(&p.text_document.uri, Some(p.text_document.text));
                    p.text_document.uri
                }),
            DidChangeTextDocument::METHOD => notification
                .extract::<lsp_types::DidChangeTextDocumentParams>(DidChangeTextDocument::METHOD)
                .ok()
                .map(|p| {
                    if let Some(change) = p.content_changes.into_iter().next_back() {
                        self.set(&p.text_document.uri, Some(change.text));
                    }
                    p.text_document.uri
                }),
            DidSaveTextDocument::METHOD => notification
                .extract::<lsp_types::DidSaveTextDocumentParams>(DidSaveTextDocument::METHOD)
                .ok()
                .map(|p| p.text_document.uri),
            DidCloseTextDocument::METHOD => notification
                .extract::<lsp_types::DidCloseTextDocumentParams>(DidCloseTextDocument::METHOD)
                .ok()
                .map(|p| {
                    self.set(&p.text_document.uri, None);
                    p.text_document.uri
                }),
            _ => None,
        };
        changed
            .map(|uri| self.diagnostics(&uri))
            .unwrap_or_default()
    }

    /// Records (or, with `None`, forgets) the editor's text of `uri`.
    fn set(&mut self, uri: &Url, text: Option<String>) {
        let Ok(path) = uri.to_file_path() else {
            return;
        };
        let key = RealFs.canonicalize(&path);
        match text {
            Some(text) => self.open.insert(key, text),
            None => self.open.remove(&key),
        };
    }

    /// The text of `uri`: the editor's, else the file's.
    fn text(&self, uri: &Url) -> Option<(PathBuf, String)> {
        let path = uri.to_file_path().ok()?;
        let text = match self.open.get(&RealFs.canonicalize(&path)) {
            Some(text) => text.clone(),
            None => std::fs::read_to_string(&path).ok()?,
        };
        Some((path, text))
    }

    /// Compiles the project of `uri`; the diagnostics of each of its files.
    fn diagnostics(&mut self, uri: &Url) -> Vec<Notification> {
        let Ok(path) = uri.to_file_path() else {
            return Vec::new();
        };
        let mut by_file = self.compile(&path);
        // A closed document outside the project keeps nothing.
        if !self.open.contains_key(&RealFs.canonicalize(&path)) && !by_file.contains_key(uri) {
            by_file.insert(uri.clone(), Vec::new());
        }
        for stale in std::mem::take(&mut self.published) {
            by_file.entry(stale).or_default();
        }
        self.published = by_file
            .iter()
            .filter(|(_, diagnostics)| !diagnostics.is_empty())
            .map(|(uri, _)| uri.clone())
            .collect();
        by_file
            .into_iter()
            .map(|(uri, diagnostics)| {
                Notification::new(
                    PublishDiagnostics::METHOD.to_string(),
                    PublishDiagnosticsParams::new(uri, diagnostics, None),
                )
            })
            .collect()
    }

    /// The diagnostics of every file of `document`'s project (of each of its sides, each
    /// diagnostic once), and of `document`'s own compilation when no side reads it.
    fn compile(&self, document: &Path) -> BTreeMap<Url, Vec<lsp_types::Diagnostic>> {
        let overlay = project::Overlay { open: &self.open };
        let mut all: BTreeMap<Url, Vec<lsp_types::Diagnostic>> = BTreeMap::new();
        let key = RealFs.canonicalize(document);
        // Compiles `inputs`; whether they read `document`.
        let mut compile = |inputs: &crate::Inputs| -> bool {
            let compiled = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                crate::compile_every_side_with(inputs, &overlay)
            }));
            let compilation = match compiled {
                Ok(Ok(compilation)) => compilation,
                Ok(Err(error)) => {
                    eprintln!("idlc lsp: {error}");
                    return false;
                }
                Err(_) => {
                    eprintln!("idlc lsp: the compiler panicked (a bug of idlc)");
                    return false;
                }
            };
            let covered = (0..compilation.sources.len())
                .any(|file| RealFs.canonicalize(compilation.sources.path(file)) == key);
            for (uri, diagnostics) in
                diagnostics::by_file(&compilation.sources, &compilation.diagnostics)
            {
                let known = all.entry(uri).or_default();
                for diagnostic in diagnostics {
                    if !known.contains(&diagnostic) {
                        known.push(diagnostic);
                    }
                }
            }
            covered
        };
        let mut covered = false;
        for inputs in project::project(self.root.as_deref()) {
            covered |= compile(&inputs);
        }
        if !covered {
            compile(&project::alone(document, self.open.keys()));
        }
        all
    }

    /// `textDocument/formatting`: the whole text replaced by `idlc fmt`'s, or nothing when it
    /// has syntax errors (or is formatted already).
    fn formatting(&self, uri: &Url) -> Option<Vec<TextEdit>> {
        let (path, text) = self.text(uri)?;
        let formatted = crate::fmt::format(0, &text, language_of(&path)?).ok()?;
        if formatted == text {
            return Some(Vec::new());
        }
        Some(vec![TextEdit::new(
            LineIndex::new(&text).whole(),
            formatted,
        )])
    }

    /// `textDocument/documentSymbol`.
    fn symbols(&self, uri: &Url) -> Option<DocumentSymbolResponse> {
        let (path, text) = self.text(uri)?;
        let language = language_of(&path)?;
        Some(DocumentSymbolResponse::Nested(symbols::symbols(
            &text, language,
        )))
    }
}

fn params<P: DeserializeOwned>(request: Request) -> Result<P, String> {
    serde_json::from_value(request.params).map_err(|error| error.to_string())
}

fn json(value: impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}
