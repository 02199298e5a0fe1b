//! `idlc dissector`: a Wireshark Lua dissector for one PROTOCOL in one encoding (DESIGN.md,
//! CLI; docs/DISSECTOR.md).
//!
//! A consumer of the IR like the interpreter: it walks ir::plan's steps and writes, per struct
//! the protocol's items carry, a Lua function that reads its full form bit by bit with the
//! checks of interpret/decode.rs, and adds a node per field. The script's fixed parts are
//! Lua files beside this one: runtime.lua (the reader and one function per rule, in plain
//! arithmetic for Lua 5.2 to 5.4) and packet.lua (the CRC, the session header, the items, the
//! tree). A rule the script cannot read yet is refused with a diagnostic (E0701), never
//! written wrong.

mod delta;
mod fields;
mod lua;
mod protocol;
mod rules;
mod structs;

use std::cell::Cell;
use std::collections::HashSet;

use codespan_reporting::diagnostic::Diagnostic as Report;

use crate::diagnostics::{Diagnostic, codes, primary};
use crate::ir::plan::EncodingPlan;
use crate::ir::{Encoding, Ir, Loc, Style, WireRule};
use fields::Fields;

/// What to generate.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The PROTOCOL whose packets the script decodes.
    pub protocol: String,
    /// The PROTOCOL whose requests the packets' responses answer (`--answers`); `protocol`'s
    /// own when `None`.
    pub answers: Option<String>,
    /// The encoding (`--encoding-name`); the first one when `None`.
    pub encoding: Option<String>,
    /// The UDP port the dissector registers on; without one, it is offered in "Decode As".
    pub port: Option<u16>,
}

/// Why no script was written.
#[derive(Debug)]
pub enum Error {
    /// No such protocol or encoding: a usage error.
    Usage(String),
    /// Something the script cannot decode yet: diagnostics (E0701).
    Refused(Vec<Diagnostic>),
}

/// A rule or a name the dissector cannot handle, where it stands.
#[derive(Debug, Clone)]
pub struct Refusal {
    /// What is refused.
    pub message: String,
    /// The declaration it comes from.
    pub loc: Option<Loc>,
    /// How to get past it.
    pub note: String,
}

impl Refusal {
    fn diagnostic(self) -> Diagnostic {
        let mut report = Report::error()
            .with_code(codes::DISSECTOR_UNSUPPORTED)
            .with_message(format!("idlc dissector cannot decode {}", self.message))
            .with_notes(vec![self.note]);
        if let Some(loc) = self.loc {
            report = report.with_labels(vec![primary(loc.file, loc.span)]);
        }
        report
    }
}

/// The state of one generation.
pub(crate) struct Generator<'a> {
    ir: &'a Ir,
    encoding: &'a Encoding,
    plan: &'a EncodingPlan,
    fields: Fields,
    /// The declaration being generated, for refusals.
    loc: Cell<Option<Loc>>,
}

impl Generator<'_> {
    fn at(&self, loc: Loc) {
        self.loc.set(Some(loc));
    }

    fn refuse(&self, message: String) -> Refusal {
        Refusal {
            message,
            loc: self.loc.get(),
            note: "the dissector reads BITSTREAM encodings with every rule but QUATERNION, \
                   SMALLEST_THREE, and lengths with rules of their own (docs/DISSECTOR.md)"
                .to_string(),
        }
    }

    /// The structs the roots carry, themselves included, in the plan's order.
    fn reachable(&self, roots: &[String]) -> Vec<&str> {
        let mut seen: HashSet<String> = HashSet::new();
        let mut stack: Vec<String> = roots.to_vec();
        while let Some(name) = stack.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            if let Some(plan) = self.plan.structs.get(&name) {
                for (_, rule) in plan.rules() {
                    structs_of(rule, &mut stack);
                }
            }
        }
        self.plan
            .structs
            .keys()
            .filter(|name| seen.contains(*name))
            .map(String::as_str)
            .collect()
    }
}

fn structs_of(rule: &WireRule, out: &mut Vec<String>) {
    match rule {
        WireRule::Struct(name) => out.push(name.clone()),
        WireRule::Sequence { element, .. } | WireRule::Array { element, .. } => {
            structs_of(element, out)
        }
        WireRule::Optional(inner) => structs_of(inner, out),
        _ => {}
    }
}

/// The Lua script decoding `options.protocol` in its encoding: deterministic for the same IR.
pub fn generate(ir: &Ir, options: &Options) -> Result<String, Error> {
    let find = |name: &str| {
        ir.schema.protocols.get(name).ok_or_else(|| {
            let known: Vec<&str> = ir.schema.protocols.keys().map(String::as_str).collect();
            Error::Usage(format!(
                "no PROTOCOL `{name}` (the schema has: {})",
                if known.is_empty() {
                    "none".to_string()
                } else {
                    known.join(", ")
                }
            ))
        })
    };
    let protocol = find(&options.protocol)?;
    let answered = find(options.answers.as_deref().unwrap_or(&options.protocol))?;
    let encoding = match &options.encoding {
        Some(name) => ir.encodings.get(name),
        None => ir.encodings.values().next(),
    }
    .ok_or_else(|| {
        Error::Usage(format!(
            "no encoding `{}`",
            options.encoding.as_deref().unwrap_or("")
        ))
    })?;
    let plan = ir
        .plan(&encoding.name)
        .ok_or_else(|| Error::Usage(format!("no plan of the encoding `{}`", encoding.name)))?;
    let generator = Generator {
        ir,
        encoding,
        plan,
        fields: Fields::new(&protocol.name),
        loc: Cell::new(encoding.loc),
    };
    let refused = |refusal: Refusal| Error::Refused(vec![refusal.diagnostic()]);
    if encoding.style == Style::Bytestream {
        return Err(refused(
            generator.refuse(format!("the BYTESTREAM encoding `{}`", encoding.name)),
        ));
    }
    let mut generator = generator;
    let structs: Vec<String> = generator
        .reachable(&Generator::roots(protocol, answered))
        .into_iter()
        .map(str::to_string)
        .collect();
    let mut refusals = Vec::new();
    for name in &structs {
        if let Some(def) = ir.schema.structs.get(name)
            && let Err(refusal) = generator.fields.declare(def)
        {
            refusals.push(refusal.diagnostic());
        }
    }
    // The full form of every struct the items carry, then the delta form of every
    // PUBLISHABLE_STRUCT a snapshot's delta reads.
    let full = structs.iter().map(|name| (name.clone(), false));
    let deltas = generator.snapshot_structs(protocol).into_iter();
    let mut decoders = String::new();
    for (name, delta) in full.chain(deltas.map(|name| (name, true))) {
        let (Some(def), Some(plan)) = (ir.schema.structs.get(&name), plan.structs.get(&name))
        else {
            continue;
        };
        let decoder = if delta {
            generator.delta_decoder(def, plan)
        } else {
            generator.struct_decoder(def, plan)
        };
        match decoder {
            Ok(lua) => {
                decoders.push_str(&lua);
                decoders.push('\n');
            }
            Err(refusal) => refusals.push(refusal.diagnostic()),
        }
    }
    if !refusals.is_empty() {
        return Err(Error::Refused(refusals));
    }
    Ok(generator.script(protocol, answered, options, &decoders))
}

impl Generator<'_> {
    fn script(
        &self,
        protocol: &crate::ir::ProtocolDef,
        answered: &crate::ir::ProtocolDef,
        options: &Options,
        decoders: &str,
    ) -> String {
        let abbreviation = self.fields.protocol.clone();
        let registration = match options.port {
            Some(port) => format!("DissectorTable.get(\"udp.port\"):add({port}, PROTOCOL)\n"),
            None => "DissectorTable.get(\"udp.port\"):add_for_decode_as(PROTOCOL)\n".to_string(),
        };
        let mut enums = String::from("-- Every enum's enumerators by index.\nlocal ENUMS = {}\n");
        for def in self.ir.schema.enums.values() {
            let names: Vec<String> = def
                .enumerators
                .iter()
                .enumerate()
                .map(|(i, e)| format!("[{i}] = {}", lua::string(&e.name)))
                .collect();
            enums.push_str(&format!(
                "ENUMS[{}] = {{ {} }}\n",
                lua::string(&def.name),
                names.join(", ")
            ));
        }
        format!(
            "-- @generated by idlc dissector: do not edit.\n\
             -- The packets of PROTOCOL {name} in the encoding {encoding}, for Wireshark 4.0 to 4.4:\n\
             -- `wireshark -X lua_script:this.lua`, or copy it to Wireshark's plugins folder.\n\
             -- Filters: {abbreviation}.<type>.<field> (lower case), {abbreviation}.item_name, ...\n\n\
             local NAME = {name_lua}\n\
             local ABBR = {abbr_lua}\n\
             local PROTOCOL = Proto(ABBR, {description})\n\n\
             {runtime}\n{delta}\n\
             -- ---------------------------------------------------------------------------------------------\n\
             -- The fields, the enums and the decoders of every struct the items carry.\n\
             -- ---------------------------------------------------------------------------------------------\n\n\
             {fields}\n{enums}\n{decoders}{versions}\n{entries}\n{packet}\n{registration}",
            name = protocol.name,
            encoding = self.encoding.name,
            name_lua = lua::string(&protocol.name),
            abbr_lua = lua::string(&abbreviation),
            description = lua::string(&format!("{} (idlc, {})", protocol.name, self.encoding.name)),
            runtime = include_str!("runtime.lua"),
            delta = include_str!("delta.lua"),
            fields = self.fields.lua(),
            versions = self.versions(protocol),
            entries = self.entries(protocol, answered),
            packet = include_str!("packet.lua"),
        )
    }
}
