//! `idlc lsp`: a language server (LSP 3.17 over stdio) for the three languages, on
//! rust-analyzer's `lsp-server` crate: one synchronous loop that answers each message in turn
//! with the compiler's own stages (the same parsers, resolver, IR and formatter as the CLI).
//!
//! What it does: diagnostics of all three languages, pushed (`publishDiagnostics`) after every
//! open, change and save, for every file of the document's project, with the other files'
//! locations as related information; formatting (what `idlc fmt` writes); document symbols;
//! go to definition, references and rename of a type, field, CONST, PROTOCOL or RPC across the
//! three languages, and definition of an IMPORT (its file) ([`navigate`], from the symbol
//! [`index`]); hover with a field's IDL type and its rule and bits in every encoding, as
//! `idlc report` has them ([`hover`]); completion of the fields a block has not listed yet,
//! rules and types ([`complete`]).
//!
//! A document's project is the `idlc.toml` at the workspace's root (each side compiled as
//! `idlc check` does), else the files beside it and the open documents ([`project`]). Each change
//! compiles it once ([`analysis`]); the requests until the next change are answered from that
//! compilation. No input stops it: a frame that is no message is skipped ([`transport`]), and a
//! compilation or an answer that panicked would be a bug of idlc, and is caught and reported (in
//! the log, or as an error response) instead.
//!
//! Behind the feature `lsp`, which only the package idlc-cli turns on.

pub mod analysis;
pub mod complete;
pub mod diagnostics;
pub mod hover;
pub mod index;
pub mod navigate;
pub mod project;
pub mod symbols;
pub mod text;
pub mod transport;

use std::collections::{BTreeSet, HashMap};
use std::error::Error;
use std::path::PathBuf;

use lsp_server::{ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    Completion, DocumentSymbolRequest, Formatting, GotoDefinition, HoverRequest,
    PrepareRenameRequest, References, Rename, Request as _,
};
use lsp_types::{
    CompletionOptions, CompletionParams, CompletionResponse, DocumentFormattingParams,
    DocumentSymbolParams, DocumentSymbolResponse, GotoDefinitionParams, GotoDefinitionResponse,
    Hover, HoverParams, HoverProviderCapability, InitializeParams, OneOf, PrepareRenameResponse,
    PublishDiagnosticsParams, ReferenceParams, RenameOptions, RenameParams, ServerCapabilities,
    ServerInfo, TextDocumentPositionParams, TextDocumentSyncCapability, TextDocumentSyncKind,
    TextEdit, Url, WorkDoneProgressOptions, WorkspaceEdit,
};
use serde::de::DeserializeOwned;

use crate::fmt::language_of;
use crate::load::{FileSystem, RealFs};
use analysis::Analysis;
use text::LineIndex;

/// Serves one client on stdin / stdout until it says `exit`.
pub fn run() -> Result<(), Box<dyn Error + Send + Sync>> {
    let (connection, threads) = transport::stdio();
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
    for thread in threads {
        let _ = thread.join();
    }
    Ok(())
}

/// What the server offers.
pub fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(TextDocumentSyncKind::FULL)),
        document_formatting_provider: Some(OneOf::Left(true)),
        document_symbol_provider: Some(OneOf::Left(true)),
        definition_provider: Some(OneOf::Left(true)),
        references_provider: Some(OneOf::Left(true)),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions::default()),
        rename_provider: Some(OneOf::Right(RenameOptions {
            prepare_provider: Some(true),
            work_done_progress_options: WorkDoneProgressOptions::default(),
        })),
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

/// The server's state: the open documents, and the last analysis.
struct Server {
    root: Option<PathBuf>,
    /// The open documents' text, by canonical path.
    open: HashMap<PathBuf, String>,
    /// The files diagnostics were last published for, to clear them when they are gone.
    published: BTreeSet<Url>,
    /// The analysis of the last document compiled, until a document changes.
    analysis: Option<Analysis>,
}

impl Server {
    fn new(root: Option<PathBuf>) -> Self {
        Server {
            root,
            open: HashMap::new(),
            published: BTreeSet::new(),
            analysis: None,
        }
    }

    /// The response to `request`; an internal error, not a crash, if answering it panicked
    /// (a bug of idlc).
    fn request(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        let answered =
            std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| self.answer(request)));
        match answered {
            Ok(response) => response,
            Err(_) => {
                // What it knew may be half-made.
                self.analysis = None;
                Response::new_err(
                    id,
                    ErrorCode::InternalError as i32,
                    "idlc lsp panicked answering this request (a bug of idlc)".to_string(),
                )
            }
        }
    }

    fn answer(&mut self, request: Request) -> Response {
        let id = request.id.clone();
        let result = match request.method.as_str() {
            Formatting::METHOD => params::<DocumentFormattingParams>(request)
                .map(|p| json(self.formatting(&p.text_document.uri))),
            DocumentSymbolRequest::METHOD => params::<DocumentSymbolParams>(request)
                .map(|p| json(self.symbols(&p.text_document.uri))),
            GotoDefinition::METHOD => params::<GotoDefinitionParams>(request)
                .map(|p| json(self.definition(&p.text_document_position_params))),
            References::METHOD => {
                params::<ReferenceParams>(request).map(|p| json(self.references(&p)))
            }
            HoverRequest::METHOD => params::<HoverParams>(request)
                .map(|p| json(self.hover(&p.text_document_position_params))),
            Completion::METHOD => {
                params::<CompletionParams>(request).map(|p| json(self.completion(&p)))
            }
            PrepareRenameRequest::METHOD => {
                params::<TextDocumentPositionParams>(request).map(|p| json(self.prepare_rename(&p)))
            }
            Rename::METHOD => {
                params::<RenameParams>(request).and_then(|p| self.rename(&p).map(json))
            }
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
        self.analysis = None;
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
        let analysis = Analysis::new(self.root.as_deref(), &path, &self.open);
        let mut by_file = analysis.diagnostics();
        self.analysis = Some(analysis);
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

    /// The analysis that reads `uri` (the last one when it does; else a new one, kept), with the
    /// document's path.
    fn analysis(&mut self, uri: &Url) -> Option<(&Analysis, PathBuf)> {
        let path = uri.to_file_path().ok()?;
        let key = RealFs.canonicalize(&path);
        if !self.analysis.as_ref().is_some_and(|a| a.covers(&key)) {
            self.analysis = Some(Analysis::new(self.root.as_deref(), &path, &self.open));
        }
        Some((self.analysis.as_ref()?, key))
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

impl Server {
    /// `textDocument/definition`.
    fn definition(&mut self, at: &TextDocumentPositionParams) -> Option<GotoDefinitionResponse> {
        let (analysis, path) = self.analysis(&at.text_document.uri)?;
        let found = navigate::definition(analysis.index(), &path, at.position);
        Some(GotoDefinitionResponse::Array(found))
    }

    /// `textDocument/references`.
    fn references(&mut self, p: &ReferenceParams) -> Option<Vec<lsp_types::Location>> {
        let at = &p.text_document_position;
        let (analysis, path) = self.analysis(&at.text_document.uri)?;
        Some(navigate::references(
            analysis.index(),
            &path,
            at.position,
            p.context.include_declaration,
        ))
    }

    /// `textDocument/hover`.
    fn hover(&mut self, at: &TextDocumentPositionParams) -> Option<Hover> {
        let (analysis, path) = self.analysis(&at.text_document.uri)?;
        hover::hover(analysis, &path, at.position)
    }

    /// `textDocument/completion`.
    fn completion(&mut self, p: &CompletionParams) -> Option<CompletionResponse> {
        let at = &p.text_document_position;
        let (analysis, path) = self.analysis(&at.text_document.uri)?;
        let language = language_of(&path)?;
        let text = analysis.source(&path)?;
        let offset = LineIndex::new(text).offset(at.position);
        let compilation = analysis.best_first().next();
        Some(CompletionResponse::Array(complete::complete(
            analysis.index(),
            compilation,
            text,
            language,
            offset,
        )))
    }

    /// `textDocument/prepareRename`.
    fn prepare_rename(&mut self, at: &TextDocumentPositionParams) -> Option<PrepareRenameResponse> {
        let (analysis, path) = self.analysis(&at.text_document.uri)?;
        navigate::prepare_rename(analysis.index(), &path, at.position)
            .map(PrepareRenameResponse::Range)
    }

    /// `textDocument/rename`.
    fn rename(&mut self, p: &RenameParams) -> Result<Option<WorkspaceEdit>, String> {
        let at = &p.text_document_position;
        let Some((analysis, path)) = self.analysis(&at.text_document.uri) else {
            return Ok(None);
        };
        navigate::rename(analysis.index(), &path, at.position, &p.new_name).map(Some)
    }
}

fn params<P: DeserializeOwned>(request: Request) -> Result<P, String> {
    serde_json::from_value(request.params).map_err(|error| error.to_string())
}

fn json(value: impl serde::Serialize) -> serde_json::Value {
    serde_json::to_value(value).unwrap_or(serde_json::Value::Null)
}
