//! One value with its rule: the Lua expression that reads it (with `r`, the reader, and
//! `parent`, the node it goes under, in scope), as interpret/decode.rs reads it.

use super::{Generator, Refusal, lua};
use crate::ir::{Type, VlqMapping, WireRule, is_default_length};

impl Generator<'_> {
    /// The expression reading a value of IDL type `ty` written with `rule`, shown as `field`
    /// (a ProtoField expression).
    pub(super) fn read(&self, rule: &WireRule, ty: &Type, field: &str) -> Result<String, Refusal> {
        let names = |what: &str| match ty {
            Type::Enum(name) => Ok(format!("ENUMS[{}]", lua::string(name))),
            _ => Err(self.refuse(format!("{what} of a {} field", ty.describe()))),
        };
        Ok(match rule {
            WireRule::Bool { bits } => format!("rule_bool(r, parent, {field}, {bits})"),
            WireRule::Ranged { min, max, bits } => {
                if lua::exact_in_double(*min, *max) && *bits <= 52 {
                    let enumerators = match ty {
                        Type::Enum(_) => names("an enum")?,
                        _ => "nil".to_string(),
                    };
                    format!("rule_ranged(r, parent, {field}, {min}, {max}, {bits}, {enumerators})")
                } else {
                    let (signed, span) = self.wide_range(*min, *max)?;
                    format!(
                        "rule_ranged_wide(r, parent, {field}, {}, {}, {bits}, {signed})",
                        lua::wide(*min, false),
                        lua::wide(span, false),
                    )
                }
            }
            WireRule::Fixed { bits, signed } => {
                let (min, max) = ty.int_range().unwrap_or((0, 0));
                if *bits <= 52 {
                    format!(
                        "rule_fixed(r, parent, {field}, {bits}, {signed}, {}, {})",
                        lua::number(min),
                        lua::number(max)
                    )
                } else {
                    format!(
                        "rule_fixed_wide(r, parent, {field}, {bits}, {signed}, {}, {})",
                        lua::wide(min, *signed),
                        lua::wide(max, *signed)
                    )
                }
            }
            WireRule::Vlq {
                group_bits,
                mapping,
                max_groups,
                min,
                max,
            } => {
                let type_bits = max_groups.saturating_mul(*group_bits).min(64);
                let mode = match mapping {
                    VlqMapping::Plain => "plain",
                    VlqMapping::ZigZag => "zigzag",
                    VlqMapping::Offset => "offset",
                };
                if type_bits <= 52 && lua::exact_in_double(*min, *max) {
                    let enumerators = match ty {
                        Type::Enum(_) => names("an enum")?,
                        _ => "nil".to_string(),
                    };
                    format!(
                        "rule_vlq(r, parent, {field}, {group_bits}, {type_bits}, \"{mode}\", {min}, {max}, {enumerators})"
                    )
                } else {
                    let (signed, _) = self.wide_range(*min, *max)?;
                    if matches!(ty, Type::Enum(_)) || (!signed && *mapping == VlqMapping::ZigZag) {
                        return Err(
                            self.refuse(format!("VLQ({group_bits}) of a {}", ty.describe()))
                        );
                    }
                    format!(
                        "rule_vlq_wide(r, parent, {field}, {group_bits}, {type_bits}, \"{mode}\", {}, {}, {signed})",
                        lua::wide(*min, signed),
                        lua::wide(*max, signed)
                    )
                }
            }
            WireRule::EnumIndex { count, bits } => format!(
                "rule_enum_index(r, parent, {field}, {count}, {bits}, {})",
                names("an enumerator index")?
            ),
            WireRule::Huffman { codes } => {
                if codes.iter().any(|&(_, len)| len > 52) {
                    return Err(self.refuse("a HUFFMAN code longer than 52 bits".to_string()));
                }
                let codes: Vec<String> = codes
                    .iter()
                    .enumerate()
                    .map(|(i, (code, len))| format!("[{i}] = {{ {code}, {len} }}"))
                    .collect();
                format!(
                    "rule_huffman(r, parent, {field}, {{ {} }}, {})",
                    codes.join(", "),
                    names("HUFFMAN")?
                )
            }
            WireRule::FixedPoint {
                min,
                max,
                resolution,
                first,
                steps,
                bits,
                ..
            } => {
                if *bits > 52 {
                    return Err(self.refuse(format!("FIXED_POINT of {bits} bits")));
                }
                format!(
                    "rule_fixed_point(r, parent, {field}, {}, {}, {}, {first}, {steps}, {bits}, {})",
                    lua::real(*min),
                    lua::real(*max),
                    lua::real(*resolution),
                    decimals(&[*resolution, *min])
                )
            }
            WireRule::Float32 | WireRule::Float64 => {
                let width = if matches!(rule, WireRule::Float32) {
                    32
                } else {
                    64
                };
                let (range, ends) = match ty {
                    Type::Numeric {
                        min,
                        max,
                        min_inclusive,
                        max_inclusive,
                    } => {
                        let range = format!(
                            "{{ {}, {}, {min_inclusive}, {max_inclusive} }}",
                            lua::real(*min),
                            lua::real(*max)
                        );
                        let ends = if width == 32 && !crate::ir::ends_are_f32(*min, *max) {
                            let end = |v: f64| {
                                let single = f64::from(v as f32);
                                if single.is_finite() {
                                    lua::real(single)
                                } else {
                                    "nil".to_string()
                                }
                            };
                            format!("{{ {}, {} }}", end(*min), end(*max))
                        } else {
                            "nil".to_string()
                        };
                        (range, ends)
                    }
                    _ => ("nil".to_string(), "nil".to_string()),
                };
                format!("rule_float(r, parent, {field}, {width}, {range}, {ends})")
            }
            WireRule::Bytes { length, utf8, max } => format!(
                "rule_bytes(r, parent, {field}, {}, {utf8})",
                self.length(length, *max)?
            ),
            WireRule::Sequence {
                count,
                max,
                element,
                ..
            } => {
                let Type::Sequence {
                    element: element_ty,
                    ..
                } = ty
                else {
                    return Err(self.refuse(format!("a SEQUENCE rule on {}", ty.describe())));
                };
                format!(
                    "rule_sequence(r, parent, {field}, {}, {}, {})",
                    self.length(count, *max)?,
                    max.is_some(),
                    self.elements(element, element_ty, field)?
                )
            }
            WireRule::Array { len, element } => {
                let Type::Array {
                    element: element_ty,
                    ..
                } = ty
                else {
                    return Err(self.refuse(format!("an ARRAY rule on {}", ty.describe())));
                };
                format!(
                    "rule_array(r, parent, {field}, {len}, {})",
                    self.elements(element, element_ty, field)?
                )
            }
            WireRule::Optional(inner) => match ty {
                Type::Optional(inner_ty) if !matches!(**inner_ty, Type::Optional(_)) => format!(
                    "rule_optional(r, parent, {field}, function(r, parent)\n  return {}\nend)",
                    self.read(inner, inner_ty, field)?
                ),
                _ => return Err(self.refuse(format!("an OPTIONAL rule on {}", ty.describe()))),
            },
            WireRule::Quaternion | WireRule::SmallestThree { .. } => {
                return Err(self.refuse("a QUATERNION".to_string()));
            }
            WireRule::Struct(name) => {
                format!("rule_struct(r, parent, {field}, {})", lua::string(name))
            }
        })
    }

    /// The least bits of an element, then the function that reads one (a SEQUENCE's, an
    /// ARRAY's).
    fn elements(&self, element: &WireRule, ty: &Type, field: &str) -> Result<String, Refusal> {
        Ok(format!(
            "{}, function(r, parent)\n  return {}\nend",
            self.min_bits(element),
            self.read(element, ty, field)?
        ))
    }

    /// The function that reads a length or count with `rule`, bounded by `max`.
    pub(super) fn length(&self, rule: &WireRule, max: Option<u64>) -> Result<String, Refusal> {
        match (rule, max) {
            (_, None) if is_default_length(rule, max) => Ok("vlq_length".to_string()),
            (WireRule::Ranged { min: 0, bits, .. }, Some(max)) if *bits <= 52 => Ok(format!(
                "function(r) return bounded_length(r, {max}, {bits}) end"
            )),
            _ => Err(self.refuse("a length or count with a rule of its own".to_string())),
        }
    }

    /// Whether a range beyond 2^52 is signed (an Int64), and its span; a range that neither an
    /// i64 nor a u64 holds is refused.
    fn wide_range(&self, min: i128, max: i128) -> Result<(bool, i128), Refusal> {
        let signed = min < 0;
        let fits = if signed {
            max <= i128::from(i64::MAX)
        } else {
            max <= i128::from(u64::MAX)
        };
        if !fits {
            return Err(self.refuse(format!("the range {min}..={max}")));
        }
        Ok((signed, max - min))
    }

    /// The least bits an element of `rule` takes (ir::cost): what a count is checked against.
    fn min_bits(&self, rule: &WireRule) -> u64 {
        crate::ir::cost::min_bits(self.ir, self.encoding, rule)
    }
}

/// The decimals that show every step of a FIXED_POINT exactly: the most that its resolution
/// and its lower bound have as written (their shortest decimal texts).
pub(super) fn decimals(reals: &[f64]) -> usize {
    reals
        .iter()
        .map(|real| {
            let text = format!("{:?}", real.abs());
            match text.split_once('e') {
                Some((mantissa, exponent)) => {
                    let digits = mantissa.split_once('.').map_or(0, |(_, d)| d.len());
                    let exponent: i64 = exponent.parse().unwrap_or(0);
                    usize::try_from(digits as i64 - exponent).unwrap_or(0)
                }
                None => match text.split_once('.') {
                    Some((_, d)) if d != "0" => d.len(),
                    _ => 0,
                },
            }
        })
        .max()
        .unwrap_or(0)
        .min(17)
}

#[cfg(test)]
mod tests {
    #[test]
    fn decimals_of_resolutions() {
        assert_eq!(super::decimals(&[0.01, -512.0]), 2);
        assert_eq!(super::decimals(&[1e-3, 0.001]), 3);
        assert_eq!(super::decimals(&[0.5, 0.25]), 2);
        assert_eq!(super::decimals(&[1.0, 0.0]), 0);
        assert_eq!(super::decimals(&[1e-7]), 7);
    }
}
