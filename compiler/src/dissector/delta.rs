//! The delta form of a PUBLISHABLE_STRUCT (ir::plan's `delta` steps) as a Lua decoder, as
//! interpret/delta.rs reads it: changed-bits, `DELTA` blocks, `DELTA SEQUENCE`s with their
//! element deltas, FENCE segments (an absent one keeps the baseline's values). Each decoder
//! reads against the baseline's value and its node (what the packet of the baseline showed):
//! a field sent is read and shown, a field not sent keeps the baseline's value and shows a
//! copy of its node, marked `(unchanged)`.
//!
//! A `DEAD_RECKONING` block not sent extrapolates its positions as the runtime's
//! `DeadReckoningAxis` does, `elapsed` seconds (the item's ticks times the tick the user set)
//! after the baseline. A delta form the script cannot read yet (a field with `DIFF`, an
//! EXTEND) has no decoder: its snapshot deltas are shown as not decoded (expert info), never
//! with wrong values.

use std::collections::HashSet;
use std::fmt::Write as _;

use super::structs::indent;
use super::{Generator, Refusal, lua};
use crate::ir::plan::{DeltaStep, FieldStep, StructPlan, dead_reckoning_fields};
use crate::ir::{EntryKind, ProtocolEntry, StructDef, StructKind, Type, WireRule};

impl Generator<'_> {
    /// The struct of a snapshot entry's one field (a PUBLISHABLE_STRUCT), with the field's
    /// name and the message's name.
    fn snapshot_of<'e>(&self, entry: &'e ProtocolEntry) -> Option<(&'e str, String, String)> {
        let EntryKind::Message(message) = &entry.kind else {
            return None;
        };
        let def = self.ir.schema.structs.get(message)?;
        let mut fields = def.fields();
        let (Some(field), None) = (fields.next(), fields.next()) else {
            return None;
        };
        let Type::Struct(ty) = &field.ty else {
            return None;
        };
        if self.ir.schema.structs.get(ty)?.kind != StructKind::Publishable {
            return None;
        }
        Some((message.as_str(), field.name.clone(), ty.clone()))
    }

    /// The PUBLISHABLE_STRUCTs whose delta forms a snapshot of `root` reads: `root`, and the
    /// elements of its `DELTA SEQUENCE`s, transitively; `None` when one of them has a step the
    /// script cannot read yet.
    pub(super) fn delta_structs(&self, root: &str) -> Option<Vec<String>> {
        let mut seen: HashSet<String> = HashSet::new();
        let mut order = Vec::new();
        let mut stack = vec![root.to_string()];
        while let Some(name) = stack.pop() {
            if !seen.insert(name.clone()) {
                continue;
            }
            let plan = self.plan.structs.get(&name)?;
            let delta = plan.delta.as_ref()?;
            for step in delta.iter().flatten() {
                if !supported(step, &mut stack) {
                    return None;
                }
            }
            order.push(name);
        }
        Some(order)
    }

    /// `DELTA["Name"] = function(r, parent, bv, bn, nested, elapsed) ... end`: the delta form
    /// of a PUBLISHABLE_STRUCT against the baseline's value `bv` and node `bn`, `elapsed`
    /// seconds after it (what dead reckoning extrapolates with).
    pub(super) fn delta_decoder(
        &self,
        def: &StructDef,
        plan: &StructPlan,
    ) -> Result<String, Refusal> {
        self.at(def.loc);
        let Some(delta) = &plan.delta else {
            return Err(self.refuse(format!("`{}`, which has no delta form", def.name)));
        };
        let mut body = String::new();
        if plan.recursive {
            body.push_str("enter(r)\n");
        }
        body.push_str("local v, present, outers = {}, true, {}\n");
        for (index, steps) in delta.iter().enumerate() {
            if index > 0 {
                let _ = writeln!(
                    body,
                    "-- segment {index}: after FENCE {index} (top level), in an extension (nested)"
                );
                body.push_str(
                    "if nested then\n  present = present and enter_segment(r, outers)\nelse\n  \
                     present = present and fence_present(r)\nend\n",
                );
                let read = self.delta_steps(def, plan, steps)?;
                let kept = self.unsent(def, steps)?;
                let _ = write!(
                    body,
                    "if present then\n{}else\n{}end\n",
                    indent(&read),
                    indent(&kept)
                );
            } else {
                body.push_str(&self.delta_steps(def, plan, steps)?);
            }
        }
        if plan.open_end {
            body.push_str("if nested and present then\n  skip_extension(r) -- the open end\nend\n");
        }
        body.push_str("leave_extensions(r, outers)\n");
        if plan.recursive {
            body.push_str("leave(r)\n");
        }
        body.push_str("return v\n");
        Ok(format!(
            "-- PUBLISHABLE_STRUCT {}: its delta form against a baseline\n\
             DELTA[{}] = function(r, parent, bv, bn, nested, elapsed)\n{}end\n",
            def.name,
            lua::string(&def.name),
            indent(&body)
        ))
    }

    fn delta_steps(
        &self,
        def: &StructDef,
        plan: &StructPlan,
        steps: &[DeltaStep],
    ) -> Result<String, Refusal> {
        let mut out = String::new();
        for step in steps {
            match step {
                DeltaStep::Field(field) => {
                    out.push_str(&self.sent_field(def, plan, field)?);
                }
                DeltaStep::Changed(field) => {
                    let _ = write!(
                        out,
                        "if bool(r) then -- {}'s changed-bit\n{}else\n  {}end\n",
                        field.field,
                        indent(&self.sent_field(def, plan, field)?),
                        self.keep(def, &field.field)
                    );
                }
                DeltaStep::Sequence { field, element } => {
                    out.push_str(&self.delta_sequence(def, plan, field, element.as_deref())?);
                }
                DeltaStep::Block(inner) => {
                    let _ = write!(
                        out,
                        "if bool(r) then -- a DELTA block's changed-bit\n{}else\n{}end\n",
                        indent(&self.delta_steps(def, plan, inner)?),
                        indent(&self.unsent(def, inner)?)
                    );
                }
                DeltaStep::DeadReckoning { axes, .. } => {
                    let mut read = String::new();
                    for (field, _) in dead_reckoning_fields(axes) {
                        read.push_str(&self.sent_field(def, plan, field)?);
                    }
                    let _ = write!(
                        out,
                        "if bool(r) then -- a DEAD_RECKONING block's changed-bit\n{}else\n{}end\n",
                        indent(&read),
                        indent(&self.unsent(def, std::slice::from_ref(step))?)
                    );
                }
                DeltaStep::Align => out.push_str("align(r)\n"),
                DeltaStep::Check => out.push_str("check(r)\n"),
                DeltaStep::Extension(_) => {
                    return Err(self.refuse(format!("the delta form of `{}`", def.name)));
                }
            }
        }
        Ok(out)
    }

    /// A field sent: read in full with its rule, as the full form reads it.
    fn sent_field(
        &self,
        def: &StructDef,
        plan: &StructPlan,
        field: &FieldStep,
    ) -> Result<String, Refusal> {
        if field.diff.is_some() {
            return Err(self.refuse(format!("DIFF of `{}.{}`", def.name, field.field)));
        }
        self.field(def, plan, &field.field, &field.rule)
    }

    /// A field not sent: the baseline's value and a copy of its node.
    fn keep(&self, def: &StructDef, name: &str) -> String {
        format!(
            "keep(r, parent, v, bv, bn, {}, {})\n",
            lua::string(name),
            self.fields.reference(&def.name, name)
        )
    }

    /// The steps of a block or a segment that was not sent: every field kept, every position
    /// of a DEAD_RECKONING block extrapolated from the baseline's position and velocity (its
    /// velocity kept).
    fn unsent(&self, def: &StructDef, steps: &[DeltaStep]) -> Result<String, Refusal> {
        let mut out = String::new();
        for step in steps {
            match step {
                DeltaStep::Field(field)
                | DeltaStep::Changed(field)
                | DeltaStep::Sequence { field, .. } => out.push_str(&self.keep(def, &field.field)),
                DeltaStep::Block(inner) => out.push_str(&self.unsent(def, inner)?),
                DeltaStep::DeadReckoning { axes, .. } => {
                    for (position, velocity) in axes {
                        out.push_str(&self.extrapolated(def, position, velocity)?);
                    }
                    for (_, velocity) in axes {
                        out.push_str(&self.keep(def, &velocity.field));
                    }
                }
                _ => {}
            }
        }
        if out.is_empty() {
            out.push_str("-- nothing to keep\n");
        }
        Ok(out)
    }

    /// A dead-reckoned position not sent: the baseline's extrapolated with its velocity
    /// (the runtime's `DeadReckoningAxis::predict_from`).
    fn extrapolated(
        &self,
        def: &StructDef,
        position: &FieldStep,
        velocity: &FieldStep,
    ) -> Result<String, Refusal> {
        let quantizer = |field: &FieldStep| match &field.rule {
            WireRule::FixedPoint {
                min,
                max,
                resolution,
                first,
                steps,
                bits,
                ..
            } if *bits <= 52 => Ok((
                format!(
                    "{{ {}, {}, {}, {first}, {steps} }}",
                    lua::real(*min),
                    lua::real(*max),
                    lua::real(*resolution)
                ),
                super::rules::decimals(&[*resolution, *min]),
            )),
            _ => Err(self.refuse(format!(
                "the dead-reckoned `{}.{}` without FIXED_POINT",
                def.name, field.field
            ))),
        };
        let (p, decimals) = quantizer(position)?;
        let (v, _) = quantizer(velocity)?;
        Ok(format!(
            "v[{name}] = extrapolated(r, parent, {field}, bv[{name}], bv[{velocity}], {p}, {v}, elapsed, {decimals})\n",
            name = lua::string(&position.field),
            velocity = lua::string(&velocity.field),
            field = self.fields.reference(&def.name, &position.field),
        ))
    }

    /// A `DELTA SEQUENCE`: its changed-bit, count and index gaps, then each listed element,
    /// a PUBLISHABLE_STRUCT element as a delta against the baseline's at its index.
    fn delta_sequence(
        &self,
        def: &StructDef,
        plan: &StructPlan,
        field: &FieldStep,
        publishable: Option<&str>,
    ) -> Result<String, Refusal> {
        if field.diff.is_some() {
            return Err(self.refuse(format!("DIFF of `{}.{}`", def.name, field.field)));
        }
        let name = &field.field;
        let WireRule::Sequence {
            count,
            max,
            element,
            ..
        } = &field.rule
        else {
            return Err(self.refuse(format!("the DELTA SEQUENCE `{}.{name}`", def.name)));
        };
        let Some(Type::Sequence {
            element: element_ty,
            ..
        }) = plan.field(name).map(|f| &f.ty)
        else {
            return Err(self.refuse(format!("the DELTA SEQUENCE `{}.{name}`", def.name)));
        };
        let reference = self.fields.reference(&def.name, name);
        let full = self.read(element, element_ty, &reference)?;
        // An element delta-coded against the baseline's may cost nothing but its changed-bits.
        let (min, element_fn) = match publishable {
            Some(inner) => (
                0,
                format!(
                    "function(r, parent, be, ben)\n  if be ~= nil then\n    return delta_struct(r, parent, {reference}, {}, be, ben, true, elapsed)\n  end\n  return {full}\nend",
                    lua::string(inner)
                ),
            ),
            None => (
                crate::ir::cost::min_bits(self.ir, self.encoding, element),
                format!("function(r, parent)\n  return {full}\nend"),
            ),
        };
        Ok(format!(
            "v[{}] = delta_sequence(r, parent, {reference}, bv[{}], kid_of(bn, {reference}), {}, {min}, {element_fn})\n",
            lua::string(name),
            lua::string(name),
            self.length(count, *max)?,
        ))
    }

    /// The `delta` of a snapshot entry's table: the message's one field read as a delta of its
    /// struct (top-level form) against the baseline's; `None` when the entry is no snapshot
    /// or its delta form is one the script cannot read yet.
    pub(super) fn snapshot_delta(&self, entry: &ProtocolEntry) -> Option<String> {
        let (message, field, ty) = self.snapshot_of(entry)?;
        self.delta_structs(&ty)?;
        let reference = self.fields.reference(message, &field);
        Some(format!(
            "{{ name = {message_lua}, decode = function(r, parent, base, elapsed)\n    \
             local v = {{}}\n    \
             v[{field_lua}] = delta_struct(r, parent, {reference}, {ty_lua}, base.value[{field_lua}], kid_of(base.node, {reference}), false, elapsed)\n    \
             return v\n  end }}",
            message_lua = lua::string(message),
            field_lua = lua::string(&field),
            ty_lua = lua::string(&ty),
        ))
    }

    /// The PUBLISHABLE_STRUCTs whose delta decoders the protocol's snapshots need, in the
    /// plan's order.
    pub(super) fn snapshot_structs(&self, protocol: &crate::ir::ProtocolDef) -> Vec<String> {
        let mut needed: HashSet<String> = HashSet::new();
        for entry in &protocol.entries {
            if let Some((_, _, ty)) = self.snapshot_of(entry)
                && let Some(structs) = self.delta_structs(&ty)
            {
                needed.extend(structs);
            }
        }
        self.plan
            .structs
            .keys()
            .filter(|name| needed.contains(*name))
            .cloned()
            .collect()
    }
}

/// Whether the script reads `step` (and the PUBLISHABLE_STRUCTs its element deltas need,
/// pushed on `stack`).
fn supported(step: &DeltaStep, stack: &mut Vec<String>) -> bool {
    match step {
        DeltaStep::Field(field) | DeltaStep::Changed(field) => field.diff.is_none(),
        DeltaStep::Sequence { field, element } => {
            if let Some(element) = element {
                stack.push(element.clone());
            }
            field.diff.is_none()
        }
        DeltaStep::Block(inner) => inner.iter().all(|step| supported(step, stack)),
        DeltaStep::DeadReckoning { axes, .. } => axes
            .iter()
            .all(|(p, v)| p.diff.is_none() && v.diff.is_none()),
        DeltaStep::Align | DeltaStep::Check => true,
        DeltaStep::Extension(_) => false,
    }
}
