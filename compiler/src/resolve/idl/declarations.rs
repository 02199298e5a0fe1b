//! The declarations of all IDL files in one namespace: types, CONSTs, RPCs and protocols.

use codespan_reporting::diagnostic::Diagnostic as CodespanDiagnostic;
use indexmap::IndexMap;
use indexmap::map::Entry;

use crate::diagnostics::{Diagnostic, FileId, codes, primary, secondary};
use crate::front::idl::ast::{self, IdlFile};
use crate::front::span::Ident;

/// What a name declares.
#[derive(Clone, Copy)]
pub(super) enum DeclKind<'a> {
    Const(&'a ast::Const),
    Typedef(&'a ast::Typedef),
    Enum(&'a ast::EnumDecl),
    /// A struct, with the protocol it was declared in.
    Struct(&'a ast::StructDecl, Option<&'a str>),
    /// An RPC (its parameters form a struct), with its protocol.
    Rpc(&'a ast::Rpc, &'a str),
    Protocol(&'a ast::Protocol),
}

impl DeclKind<'_> {
    /// How a message calls this kind of declaration.
    pub(super) fn describe(&self) -> &'static str {
        match self {
            DeclKind::Const(_) => "a CONST",
            DeclKind::Typedef(_) => "a TYPEDEF",
            DeclKind::Enum(_) => "an enum",
            DeclKind::Struct(..) => "a struct",
            DeclKind::Rpc(..) => "an RPC",
            DeclKind::Protocol(_) => "a PROTOCOL",
        }
    }
}

/// One declaration: where, and what.
#[derive(Clone, Copy)]
pub(super) struct Decl<'a> {
    pub file: FileId,
    pub name: &'a Ident,
    pub kind: DeclKind<'a>,
}

/// Every declaration of every IDL file, by name, in declaration order.
pub(super) struct Declarations<'a> {
    by_name: IndexMap<&'a str, Decl<'a>>,
}

impl<'a> Declarations<'a> {
    /// Collects the declarations of `files`, reporting names declared twice.
    pub fn collect(files: &'a [(FileId, IdlFile)], diagnostics: &mut Vec<Diagnostic>) -> Self {
        let mut collector = Collector {
            by_name: IndexMap::new(),
            diagnostics,
        };
        for (file, tree) in files {
            for item in &tree.items {
                collector.item(*file, item);
            }
        }
        Declarations {
            by_name: collector.by_name,
        }
    }

    /// The declaration of `name`.
    pub fn get(&self, name: &str) -> Option<Decl<'a>> {
        self.by_name.get(name).copied()
    }

    /// All declarations in order.
    pub fn iter(&self) -> impl Iterator<Item = (&'a str, Decl<'a>)> + '_ {
        self.by_name.iter().map(|(name, decl)| (*name, *decl))
    }

    /// The names of declarations that `accept` takes, for suggestions.
    pub fn names_where(&self, accept: impl Fn(&DeclKind<'a>) -> bool) -> Vec<&'a str> {
        self.by_name
            .iter()
            .filter(|(_, decl)| accept(&decl.kind))
            .map(|(name, _)| *name)
            .collect()
    }
}

struct Collector<'a, 'd> {
    by_name: IndexMap<&'a str, Decl<'a>>,
    diagnostics: &'d mut Vec<Diagnostic>,
}

impl<'a> Collector<'a, '_> {
    fn item(&mut self, file: FileId, item: &'a ast::Item) {
        match item {
            ast::Item::Import(_) => {}
            ast::Item::Const(c) => self.declare(file, &c.name, DeclKind::Const(c)),
            ast::Item::Typedef(t) => self.declare(file, &t.name, DeclKind::Typedef(t)),
            ast::Item::Enum(e) => self.declare(file, &e.name, DeclKind::Enum(e)),
            ast::Item::Struct(s) => self.structure(file, s, None),
            ast::Item::Protocol(p) => {
                self.declare(file, &p.name, DeclKind::Protocol(p));
                for item in &p.items {
                    match item {
                        ast::ProtocolItem::Struct(s) => self.structure(file, s, Some(&p.name.name)),
                        ast::ProtocolItem::Rpc(rpc) => {
                            self.declare(file, &rpc.name, DeclKind::Rpc(rpc, &p.name.name))
                        }
                        ast::ProtocolItem::Fence(_) => {}
                    }
                }
            }
        }
    }

    fn structure(&mut self, file: FileId, s: &'a ast::StructDecl, protocol: Option<&'a str>) {
        self.declare(file, &s.name, DeclKind::Struct(s, protocol));
        for member in &s.members {
            if let ast::Member::Field(ast::Field {
                ty: ast::FieldType::InlineEnum(e),
                ..
            }) = member
            {
                self.declare(file, &e.name, DeclKind::Enum(e));
            }
        }
    }

    fn declare(&mut self, file: FileId, name: &'a Ident, kind: DeclKind<'a>) {
        match self.by_name.entry(&name.name) {
            Entry::Vacant(slot) => {
                slot.insert(Decl { file, name, kind });
            }
            Entry::Occupied(first) => {
                let first = *first.get();
                self.diagnostics.push(
                    CodespanDiagnostic::error()
                        .with_code(codes::DUPLICATE_NAME)
                        .with_message(format!("the name `{}` is declared twice", name.name))
                        .with_labels(vec![
                            primary(file, name.span)
                                .with_message(format!("{} declared again here", kind.describe())),
                            secondary(first.file, first.name.span).with_message(format!(
                                "{} `{}` is declared here",
                                first.kind.describe(),
                                name.name
                            )),
                        ])
                        .with_notes(vec![
                            "types, CONSTs, RPCs and protocols share one namespace across all \
                             IDL files; rename one of them"
                                .into(),
                        ]),
                );
            }
        }
    }
}
