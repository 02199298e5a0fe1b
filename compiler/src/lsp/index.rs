//! The symbol index: where each name of a project is declared and where it is used, in the three
//! languages, read from the syntax trees the front ends built (with their spans).
//!
//! Names are global in idlc: a struct, enum, typedef, CONST, PROTOCOL or RPC is one [`Symbol::Item`]
//! wherever it is declared; a field is a [`Symbol::Field`] of its struct (an RPC's parameters are
//! the fields of the RPC, as the IR has them). An Encoding or Mapping block's members name fields
//! of the block's target; an IMPORT names a [`Symbol::File`].

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::path::{Path, PathBuf};

use lsp_types::{Position, Range};

use super::text::LineIndex;
use crate::Compilation;
use crate::diagnostics::FileId;
use crate::front::common::{Literal, NumberRef, TypeExpr, TypeKind};
use crate::front::enc::ast::{EncBody, EncMember, RuleKind};
use crate::front::idl::ast::{EnumDecl, Field, FieldType, Item, Member, ProtocolItem, StructDecl};
use crate::front::map::ast::{MapBody, MapMember, RustType};
use crate::front::span::{Ident, Span};
use crate::load::{FileSystem, Parsed, RealFs};

/// What a name stands for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Symbol {
    /// A top-level name of the IDL: a type, a CONST, a PROTOCOL or an RPC.
    Item(String),
    /// The field `name` of the struct (or RPC) `owner`.
    Field {
        /// The struct or RPC declaring it.
        owner: String,
        /// The field's name.
        name: String,
    },
    /// A file, named by an IMPORT (its canonical path).
    File(PathBuf),
}

/// What a declaration declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// `STRUCT`.
    Struct,
    /// `PUBLISHABLE_STRUCT`.
    Publishable,
    /// `MESSAGE`.
    Message,
    /// `RPC`.
    Rpc,
    /// `ENUM`, top level or inline.
    Enum,
    /// `TYPEDEF`.
    Typedef,
    /// `CONST`.
    Const,
    /// `PROTOCOL`.
    Protocol,
    /// A field of a struct or a parameter of an RPC.
    Field,
}

impl Kind {
    /// The keyword that declares it.
    pub fn keyword(self) -> &'static str {
        match self {
            Kind::Struct => "STRUCT",
            Kind::Publishable => "PUBLISHABLE_STRUCT",
            Kind::Message => "MESSAGE",
            Kind::Rpc => "RPC",
            Kind::Enum => "ENUM",
            Kind::Typedef => "TYPEDEF",
            Kind::Const => "CONST",
            Kind::Protocol => "PROTOCOL",
            Kind::Field => "field",
        }
    }

    /// Whether it is a type a field can have.
    pub fn is_type(self) -> bool {
        matches!(
            self,
            Kind::Struct | Kind::Publishable | Kind::Message | Kind::Enum | Kind::Typedef
        )
    }
}

/// One place a name is written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Occurrence {
    /// The file (canonical path).
    pub path: PathBuf,
    /// Where in it.
    pub range: Range,
    /// What the name stands for.
    pub symbol: Symbol,
    /// `Some` for the declaration, `None` for a use.
    pub declares: Option<Kind>,
}

/// Every occurrence of a name in a set of compilations.
#[derive(Debug, Default)]
pub struct Index {
    /// In the order found: files in compilation order, each in source order.
    pub occurrences: Vec<Occurrence>,
    seen: HashSet<Occurrence>,
}

impl Index {
    /// The index of `compilations`, each with its parsed files (each occurrence once, also when
    /// two compilations read the same file).
    pub fn new<'a>(compilations: impl IntoIterator<Item = (&'a Compilation, &'a Parsed)>) -> Self {
        let mut index = Index::default();
        for (compilation, parsed) in compilations {
            Walker::new(&mut index, compilation, parsed).walk(parsed);
        }
        index
    }

    fn add(&mut self, occurrence: Occurrence) {
        if self.seen.insert(occurrence.clone()) {
            self.occurrences.push(occurrence);
        }
    }

    /// The occurrence at `position` of the file `path` (canonical), if any: the narrowest one
    /// whose range holds it, its end included (the cursor just after a name is on it).
    pub fn at(&self, path: &Path, position: Position) -> Option<&Occurrence> {
        self.occurrences
            .iter()
            .filter(|o| o.path == path && o.range.start <= position && position <= o.range.end)
            .min_by_key(|o| {
                (
                    o.range.end.line - o.range.start.line,
                    o.range
                        .end
                        .character
                        .saturating_sub(o.range.start.character),
                )
            })
    }

    /// Every occurrence of `symbol`.
    pub fn of<'a>(&'a self, symbol: &'a Symbol) -> impl Iterator<Item = &'a Occurrence> + 'a {
        self.occurrences.iter().filter(move |o| &o.symbol == symbol)
    }

    /// The declarations of `symbol` (one, unless the project declares it twice).
    pub fn declarations<'a>(
        &'a self,
        symbol: &'a Symbol,
    ) -> impl Iterator<Item = &'a Occurrence> + 'a {
        self.of(symbol).filter(|o| o.declares.is_some())
    }

    /// Every declared item (type, CONST, PROTOCOL, RPC) by name, with its kind.
    pub fn items(&self) -> BTreeMap<&str, Kind> {
        self.occurrences
            .iter()
            .filter_map(|o| match (&o.symbol, o.declares) {
                (Symbol::Item(name), Some(kind)) => Some((name.as_str(), kind)),
                _ => None,
            })
            .collect()
    }

    /// The fields `owner` declares, in declaration order (each once).
    pub fn fields(&self, owner: &str) -> Vec<&str> {
        let mut fields: Vec<&str> = Vec::new();
        for occurrence in &self.occurrences {
            if let (Symbol::Field { owner: o, name }, Some(_)) =
                (&occurrence.symbol, occurrence.declares)
                && o == owner
                && !fields.contains(&name.as_str())
            {
                fields.push(name);
            }
        }
        fields
    }
}

/// Walks the files of one compilation into an [`Index`].
struct Walker<'a> {
    index: &'a mut Index,
    compilation: &'a Compilation,
    /// The file being walked: its canonical path and line index.
    file: Option<(PathBuf, LineIndex<'a>)>,
    /// The fields each struct (or RPC) of the IDL declares.
    fields: BTreeMap<String, BTreeSet<String>>,
    /// The type named by the fields of each struct, by field (for an Encoding member that names
    /// the type of exactly one field).
    field_types: BTreeMap<String, Vec<String>>,
    /// Every item the IDL declares.
    items: BTreeSet<String>,
}

impl<'a> Walker<'a> {
    fn new(index: &'a mut Index, compilation: &'a Compilation, parsed: &'a Parsed) -> Self {
        let mut walker = Walker {
            index,
            compilation,
            file: None,
            fields: BTreeMap::new(),
            field_types: BTreeMap::new(),
            items: BTreeSet::new(),
        };
        for (_, file) in &parsed.idl {
            walker.declared(file);
        }
        walker
    }

    /// Records what `file` declares (before any use is resolved).
    fn declared(&mut self, file: &crate::front::idl::ast::IdlFile) {
        for item in &file.items {
            let name = match item {
                Item::Import(_) => continue,
                Item::Const(c) => &c.name,
                Item::Typedef(t) => &t.name,
                Item::Enum(e) => &e.name,
                Item::Struct(decl) => {
                    self.declared_struct(decl);
                    continue;
                }
                Item::Protocol(protocol) => {
                    for item in &protocol.items {
                        match item {
                            ProtocolItem::Struct(decl) => self.declared_struct(decl),
                            ProtocolItem::Rpc(rpc) => {
                                self.items.insert(rpc.name.name.clone());
                                for param in &rpc.params {
                                    if let crate::front::idl::ast::Param::Field(field) = param {
                                        self.declared_field(&rpc.name.name, field);
                                    }
                                }
                            }
                            ProtocolItem::Fence(_) => {}
                        }
                    }
                    &protocol.name
                }
            };
            self.items.insert(name.name.clone());
        }
    }

    fn declared_struct(&mut self, decl: &StructDecl) {
        self.items.insert(decl.name.name.clone());
        for member in &decl.members {
            if let Member::Field(field) = member {
                self.declared_field(&decl.name.name, field);
            }
        }
    }

    fn declared_field(&mut self, owner: &str, field: &Field) {
        self.fields
            .entry(owner.to_string())
            .or_default()
            .insert(field.name.name.clone());
        let named = match &field.ty {
            FieldType::Type(TypeExpr {
                kind: TypeKind::Named(name),
                ..
            }) => name.name.clone(),
            FieldType::InlineEnum(decl) => {
                self.items.insert(decl.name.name.clone());
                decl.name.name.clone()
            }
            FieldType::Type(_) => return,
        };
        self.field_types
            .entry(owner.to_string())
            .or_default()
            .push(named);
    }

    fn walk(mut self, parsed: &'a Parsed) {
        for (file, ast) in &parsed.idl {
            self.enter(*file);
            for item in &ast.items {
                self.idl_item(*file, item);
            }
        }
        for (file, ast) in &parsed.encodings {
            self.enter(*file);
            for item in &ast.items {
                if let EncBody::Target(target, members) = &item.body {
                    self.item_use(&target.name);
                    self.enc_members(&target.name.name, members);
                }
            }
        }
        for (file, ast) in &parsed.mappings {
            self.enter(*file);
            for item in &ast.items {
                match &item.body {
                    MapBody::Target {
                        target, members, ..
                    } => {
                        self.item_use(&target.name);
                        for member in members {
                            self.map_member(&target.name.name, member);
                        }
                    }
                    MapBody::Protocol { name, .. } => self.item_use(name),
                    MapBody::Derive(_) | MapBody::Include(_) => {}
                }
            }
        }
    }

    fn enter(&mut self, file: FileId) {
        let sources = &self.compilation.sources;
        self.file = Some((
            RealFs.canonicalize(sources.path(file)),
            LineIndex::new(sources.source(file)),
        ));
    }

    fn add(&mut self, span: Span, symbol: Symbol, declares: Option<Kind>) {
        let Some((path, lines)) = &self.file else {
            return;
        };
        let occurrence = Occurrence {
            path: path.clone(),
            range: lines.range(span.start, span.end),
            symbol,
            declares,
        };
        self.index.add(occurrence);
    }

    fn item_use(&mut self, name: &Ident) {
        self.add(name.span, Symbol::Item(name.name.clone()), None);
    }

    fn item_decl(&mut self, name: &Ident, kind: Kind) {
        self.add(name.span, Symbol::Item(name.name.clone()), Some(kind));
    }

    fn field_ref(&mut self, owner: &str, name: &Ident, declares: Option<Kind>) {
        let symbol = Symbol::Field {
            owner: owner.to_string(),
            name: name.name.clone(),
        };
        self.add(name.span, symbol, declares);
    }

    fn idl_item(&mut self, file: FileId, item: &Item) {
        match item {
            Item::Import(import) => {
                let path = self.compilation.sources.path(file);
                let dir = path.parent().unwrap_or(Path::new(""));
                let target = RealFs.canonicalize(&dir.join(&import.path.value));
                self.add(import.path.span, Symbol::File(target), None);
            }
            Item::Const(constant) => {
                self.item_decl(&constant.name, Kind::Const);
                self.literal(&constant.value);
            }
            Item::Typedef(typedef) => {
                self.type_expr(&typedef.ty);
                self.item_decl(&typedef.name, Kind::Typedef);
            }
            Item::Enum(decl) => self.enumeration(decl),
            Item::Struct(decl) => self.structure(decl),
            Item::Protocol(protocol) => {
                self.item_decl(&protocol.name, Kind::Protocol);
                for item in &protocol.items {
                    match item {
                        ProtocolItem::Struct(decl) => self.structure(decl),
                        ProtocolItem::Rpc(rpc) => {
                            self.item_decl(&rpc.name, Kind::Rpc);
                            for param in &rpc.params {
                                if let crate::front::idl::ast::Param::Field(field) = param {
                                    self.field_decl(&rpc.name.name, field);
                                }
                            }
                            if let Some(returns) = &rpc.returns {
                                self.type_expr(returns);
                            }
                        }
                        ProtocolItem::Fence(_) => {}
                    }
                }
            }
        }
    }

    fn enumeration(&mut self, decl: &EnumDecl) {
        self.item_decl(&decl.name, Kind::Enum);
    }

    fn structure(&mut self, decl: &StructDecl) {
        use crate::front::idl::ast::StructKind;
        let kind = match decl.kind {
            StructKind::Struct => Kind::Struct,
            StructKind::Publishable => Kind::Publishable,
            StructKind::Message => Kind::Message,
        };
        self.item_decl(&decl.name, kind);
        for member in &decl.members {
            match member {
                Member::Field(field) => self.field_decl(&decl.name.name, field),
                Member::Extend(extend) => {
                    self.field_ref(&decl.name.name, &extend.field, None);
                    self.type_expr(&extend.ty);
                }
                Member::Fence(_) => {}
            }
        }
    }

    fn field_decl(&mut self, owner: &str, field: &Field) {
        match &field.ty {
            FieldType::Type(ty) => self.type_expr(ty),
            FieldType::InlineEnum(decl) => self.enumeration(decl),
        }
        self.field_ref(owner, &field.name, Some(Kind::Field));
        if let Some(default) = &field.default {
            self.literal(default);
        }
    }

    /// A DEFAULT or CONST value: a CONST's name in it is a use of the CONST.
    fn literal(&mut self, literal: &Literal) {
        let name = match literal {
            Literal::Name(name) => name,
            Literal::Negated(negated) => &negated.name,
            Literal::Number(_) | Literal::Bool(..) | Literal::Str(_) => return,
        };
        if self.items.contains(&name.name) {
            self.item_use(name);
        }
    }

    fn number(&mut self, number: &NumberRef) {
        match number {
            NumberRef::Literal(_) => {}
            NumberRef::Const(name) => self.item_use(name),
            NumberRef::Negated(negated) => self.item_use(&negated.name),
        }
    }

    fn type_expr(&mut self, ty: &TypeExpr) {
        match &ty.kind {
            TypeKind::Named(name) => self.item_use(name),
            TypeKind::IntRange(range) | TypeKind::Numeric(range) => {
                self.number(&range.min);
                self.number(&range.max);
            }
            TypeKind::String(limit) | TypeKind::Bytes(limit) => {
                if let Some(limit) = limit {
                    self.number(limit);
                }
            }
            TypeKind::Sequence(inner, limit) => {
                self.type_expr(inner);
                if let Some(limit) = limit {
                    self.number(limit);
                }
            }
            TypeKind::Array(inner, count) => {
                self.type_expr(inner);
                self.number(count);
            }
            TypeKind::Optional(inner) => self.type_expr(inner),
            TypeKind::Primitive(_) | TypeKind::Quaternion => {}
        }
    }

    fn enc_members(&mut self, owner: &str, members: &[EncMember]) {
        for member in members {
            match member {
                EncMember::Field(field) => {
                    if let Some(rule) = &field.rule
                        && let RuleKind::Sequence(name) = &rule.kind
                    {
                        self.item_use(name);
                    }
                    self.enc_field_name(owner, &field.name);
                    if let Some(default) = &field.default {
                        self.literal(default);
                    }
                }
                EncMember::Delta(block) => self.enc_members(owner, &block.members),
                EncMember::DeadReckoning(block) => self.enc_members(owner, &block.members),
                EncMember::Extend(extend) => {
                    self.field_ref(owner, &extend.field, None);
                    self.type_expr(&extend.ty);
                }
                EncMember::Fence(_) | EncMember::Align(_) | EncMember::Check(_) => {}
            }
        }
    }

    /// An Encoding member's name: a field of `owner`, or the type of exactly one of its fields.
    fn enc_field_name(&mut self, owner: &str, name: &Ident) {
        let is_field = self
            .fields
            .get(owner)
            .is_some_and(|fields| fields.contains(&name.name));
        let of_one_field = self
            .field_types
            .get(owner)
            .is_some_and(|types| types.iter().filter(|ty| **ty == name.name).count() == 1);
        if !is_field && of_one_field {
            self.item_use(name);
        } else {
            self.field_ref(owner, name, None);
        }
    }

    fn map_member(&mut self, owner: &str, member: &MapMember) {
        match member {
            MapMember::Field { ty, name, .. } => {
                self.rust_type(ty);
                self.field_ref(owner, name, None);
            }
            MapMember::Rename { field, .. } => self.field_ref(owner, field, None),
            MapMember::Enum { decl, field, .. } => {
                self.item_use(&decl.name);
                if let Some(field) = field {
                    self.field_ref(owner, field, None);
                }
            }
        }
    }

    /// A Rust type of a Mapping: a one-word path that an IDL item declares is the type generated
    /// for that item (`Vec<Item>`).
    fn rust_type(&mut self, ty: &RustType) {
        if let [segment] = ty.path.segments.as_slice()
            && self.items.contains(&segment.name)
        {
            self.item_use(segment);
        }
        for arg in &ty.args {
            self.rust_type(arg);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Inputs;
    use crate::load::MemoryFs;

    const IDL: &str = "CONST MAX = 4;
ENUM Kind { A, B }
STRUCT Vec2 { NUMERIC[-MAX, MAX] x; NUMERIC[-MAX, MAX] y; }
STRUCT Thing { Vec2 at; Kind kind; SEQUENCE<Vec2, MAX> trail; FENCE; EXTEND kind TO Kind; }
PROTOCOL P { RPC hit(Vec2 where); }
";
    const ENC: &str = "ENCODING(E) STRUCT Thing { Vec2; BIT(1) kind; SEQUENCE<Vec2> trail; }
ENCODING(E) RPC hit { where; }
";
    const MAP: &str =
        "MAPPING(\"Rust\", \"Client\") STRUCT Thing { enum Kind { A, B } kind; Vec<Vec2> trail; }
";

    fn index() -> Index {
        let fs = MemoryFs::new()
            .with("/p/a.idl", IDL)
            .with("/p/a.enc", ENC)
            .with("/p/a.map", MAP);
        let inputs = Inputs {
            idl: vec!["/p/a.idl".into()],
            encodings: vec!["/p/a.enc".into()],
            mappings: vec!["/p/a.map".into()],
            side: None,
        };
        let (compilation, parsed) = crate::compile_every_side_parsed(&inputs, &fs).expect("read");
        Index::new([(&compilation, &parsed)])
    }

    fn item(name: &str) -> Symbol {
        Symbol::Item(name.into())
    }

    fn field(owner: &str, name: &str) -> Symbol {
        Symbol::Field {
            owner: owner.into(),
            name: name.into(),
        }
    }

    /// Where `symbol` is written: (file extension, declaration or not), in order.
    fn places(index: &Index, symbol: &Symbol) -> Vec<(String, bool)> {
        index
            .of(symbol)
            .map(|o| {
                let extension = o.path.extension().unwrap_or_default();
                (extension.to_string_lossy().into(), o.declares.is_some())
            })
            .collect()
    }

    #[test]
    fn every_language_names_the_idl() {
        let index = index();
        // A type: field types, SEQUENCE, an RPC's parameter, an Encoding member naming the type
        // of exactly one field, a SEQUENCE<T> rule, a Rust type of a Mapping.
        let vec2 = places(&index, &item("Vec2"));
        assert_eq!(vec2.iter().filter(|p| p.1).count(), 1, "{vec2:?}");
        assert_eq!(vec2.iter().filter(|p| p.0 == "idl" && !p.1).count(), 3);
        assert_eq!(vec2.iter().filter(|p| p.0 == "enc").count(), 2);
        assert_eq!(vec2.iter().filter(|p| p.0 == "map").count(), 1);
        // A field: declared, EXTENDed, named in an Encoding and a Mapping block.
        let kind = places(&index, &field("Thing", "kind"));
        assert_eq!(
            kind,
            [
                ("idl".to_string(), true),
                ("idl".to_string(), false),
                ("enc".to_string(), false),
                ("map".to_string(), false)
            ]
        );
        // An RPC's parameter is a field of the RPC.
        assert_eq!(places(&index, &field("hit", "where")).len(), 2);
        // A CONST in ranges (negated too) and a SEQUENCE's bound.
        assert_eq!(places(&index, &item("MAX")).len(), 6);
        // An enum: declared, a field's type, EXTEND's type, restated in a Mapping.
        assert_eq!(places(&index, &item("Kind")).len(), 4);
        assert_eq!(index.fields("Thing"), ["at", "kind", "trail"]);
        assert_eq!(index.items().get("hit"), Some(&Kind::Rpc));
        // The occurrence under a cursor, its end included.
        let enc = RealFs.canonicalize(Path::new("/p/a.enc"));
        let found = index.at(&enc, Position::new(1, 26)).map(|o| &o.symbol);
        assert_eq!(found, Some(&field("hit", "where")));
        assert!(index.at(&enc, Position::new(1, 0)).is_none());
    }
}
