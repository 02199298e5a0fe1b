//! Stable diagnostic codes. A code never changes meaning; new kinds get new codes.
//!
//! `E01xx`: lexing and parsing. `E02xx`: IDL resolution. `E03xx`: Encoding resolution.
//! `E04xx`: Mapping resolution. `E05xx`: loading files. `E06xx`: check-compat (one code per
//! rule of [`crate::compat::Rule`]). `E07xx`: `idlc dissector`. `W0xxx`: warnings.

/// Text the lexer cannot read: a stray character, an unclosed string or comment.
pub const LEX_ERROR: &str = "E0101";
/// A token the grammar does not allow where it stands.
pub const UNEXPECTED_TOKEN: &str = "E0102";
/// The file ends in the middle of an item.
pub const UNEXPECTED_EOF: &str = "E0103";
/// `idlc fmt` would change what a file says: a bug of idlc; the file is left as it is.
pub const FORMAT_CHANGES_MEANING: &str = "E0104";

/// A name declared twice (types, CONSTs, protocols share one namespace).
pub const DUPLICATE_NAME: &str = "E0201";
/// A type name that nothing declares.
pub const UNKNOWN_TYPE: &str = "E0202";
/// A CONST name that nothing declares, where a number or value is expected.
pub const UNKNOWN_CONST: &str = "E0203";
/// A name that exists but is not what the place needs (a CONST used as a type, ...).
pub const WRONG_KIND_OF_NAME: &str = "E0204";
/// CONSTs or TYPEDEFs that refer to themselves.
pub const DEFINITION_CYCLE: &str = "E0205";
/// A range with min > max, an empty half-open range, or one too wide for 64 bits.
pub const BAD_RANGE: &str = "E0206";
/// A literal of the wrong kind (a real where an integer is needed, a string where a number is).
pub const WRONG_LITERAL: &str = "E0207";
/// A length or count bound that is not a positive integer.
pub const BAD_BOUND: &str = "E0208";
/// Two fields of one struct, or two parameters of one RPC, with the same name.
pub const DUPLICATE_FIELD: &str = "E0209";
/// Two enumerators with the same name or the same value, or an empty enum.
pub const BAD_ENUMERATOR: &str = "E0210";
/// A DEFAULT outside the field's range or of the wrong kind.
pub const BAD_DEFAULT: &str = "E0211";
/// A field after a FENCE without a DEFAULT.
pub const MISSING_DEFAULT: &str = "E0212";
/// An EXTEND of a field that is not declared before a FENCE.
pub const EXTEND_UNKNOWN_FIELD: &str = "E0213";
/// An EXTEND to a type that is not a widening of the field's type.
pub const EXTEND_NOT_WIDER: &str = "E0214";
/// A struct that contains itself without a SEQUENCE or OPTIONAL in between.
pub const INFINITE_RECURSION: &str = "E0215";
/// A FENCE in a place where it cannot stand (before any field).
pub const MISPLACED_FENCE: &str = "E0216";
/// A value that does not fit where it is used (an enumerator value beyond 64 bits).
pub const VALUE_OUT_OF_BOUNDS: &str = "E0217";

/// An IMPORT names a file that cannot be read (missing, a directory, no permission).
pub const IMPORT_UNREADABLE: &str = "E0501";
/// A source file is not UTF-8 text.
pub const NOT_UTF8: &str = "E0502";
/// An input file that parses but declares nothing (empty, or comments only).
pub const EMPTY_FILE: &str = "W0501";

/// A MAPPING for a target language other than `"Rust"`, the only one generated.
pub const MAP_UNSUPPORTED_LANGUAGE: &str = "E0401";
/// A MAPPING names a struct or enum that the IDL does not declare.
pub const MAP_UNKNOWN_TYPE: &str = "E0402";
/// A MAPPING's keyword (STRUCT, PUBLISHABLE_STRUCT, MESSAGE, ENUM) differs from the IDL's kind.
pub const MAP_KIND_MISMATCH: &str = "E0403";
/// A MAPPING member names a field that the IDL struct does not have.
pub const MAP_UNKNOWN_FIELD: &str = "E0404";
/// A field's Rust type, or its `=>` field, is given twice in one MAPPING.
pub const MAP_FIELD_TWICE: &str = "E0405";
/// Words before a Rust type (`class MyInventory inventory;`): a Rust type has no qualifiers.
pub const MAP_QUALIFIER: &str = "E0406";
/// A Rust type that cannot stand for the field's IDL type (`bool` for an INT, `f32` for a STRING).
pub const MAP_TYPE_MISMATCH: &str = "E0407";
/// `f32` for a FLOAT64 field: the mapping would lose precision.
pub const MAP_LOSSY_FLOAT: &str = "E0408";
/// A Rust integer type that does not hold the whole range of the IDL integer.
pub const MAP_INT_RANGE: &str = "E0409";
/// `usize` / `isize` for an integer field: their width depends on the platform.
pub const MAP_PLATFORM_INT: &str = "E0410";
/// A collection type (`Vec<..>`, a user type) for a field that is not a SEQUENCE.
pub const MAP_NOT_A_SEQUENCE: &str = "E0411";
/// A struct mapped to an existing Rust type (`= path`) leaves IDL fields without `=>`.
pub const MAP_MISSING_RENAMES: &str = "E0412";
/// `field => rust_field;` in a MAPPING without `= path` (no existing type to name a field of).
pub const MAP_RENAME_WITHOUT_EXISTING: &str = "E0413";
/// A restated enum differs from the IDL's (names, order or values).
pub const MAP_ENUM_MISMATCH: &str = "E0414";
/// `enum E {..} f;` restates enum E for a field `f` whose IDL type is not E.
pub const MAP_ENUM_FIELD_TYPE: &str = "E0415";
/// A `PROTOCOL P` mapping names a protocol that the IDL does not declare.
pub const MAP_UNKNOWN_PROTOCOL: &str = "E0416";
/// Two different directions (SEND, RECEIVE, BOTH) for one protocol on one side.
pub const MAP_PROTOCOL_CONFLICT: &str = "E0417";
/// One struct or enum is the target of two MAPPING items of the same side.
pub const MAP_TARGET_TWICE: &str = "E0418";
/// Two IDL names (types, fields of a struct, enumerators of an enum) become one Rust name.
pub const MAP_NAME_CLASH: &str = "E0419";
/// Two IDL fields mapped with `=>` to the same field of an existing Rust type.
pub const MAP_RUST_FIELD_TWICE: &str = "E0420";
/// An ENUM mapping with `= path` or with members other than the restated enum.
pub const MAP_ENUM_MAPPING: &str = "E0421";
/// Mapping files given, but none of their Rust items is for the requested side (or no side).
pub const MAP_NO_ITEM_FOR_SIDE: &str = "E0422";
/// A DERIVE that some generated struct cannot satisfy (`Copy` with a `Vec` field, `Eq` or
/// `Hash` with a float).
pub const MAP_DERIVE_UNSATISFIABLE: &str = "E0423";
/// One side mapped in two target languages (`MAPPING("Rust", "Client")` and
/// `MAPPING("CPP", "Client")`).
pub const MAP_MIXED_LANGUAGES: &str = "E0424";
/// A DERIVE item for a C++ side (derives are Rust's).
pub const MAP_CPP_DERIVE: &str = "E0425";
/// An INCLUDE item in a `"Rust"` mapping (headers are C++'s).
pub const MAP_RUST_INCLUDE: &str = "E0426";
/// A DERIVE of a trait that every generated type derives already (Debug, Clone, PartialEq,
/// Default).
pub const MAP_DERIVE_ALWAYS: &str = "W0401";
/// A mapped Rust type that cannot hold every value an encoding sends (`f32` for a NUMERIC sent
/// as FLOAT64, or quantized finer than an `f32` resolves).
pub const MAP_LOSSY_FOR_ENCODING: &str = "W0402";

/// Two items of one encoding give it different styles (BITSTREAM and BYTESTREAM).
pub const ENC_STYLE_CONFLICT: &str = "E0301";
/// Two DEFAULTS rules of one encoding for the same category.
pub const ENC_DUPLICATE_DEFAULT: &str = "E0302";
/// A DEFAULTS category that does not exist (INT, NUMERIC, ENUM, BOOL, ... are the valid ones).
pub const ENC_UNKNOWN_CATEGORY: &str = "E0303";
/// Two target blocks for the same struct, RPC or protocol in one encoding.
pub const ENC_DUPLICATE_TARGET: &str = "E0304";
/// A target block names a struct, RPC or protocol that the IDL does not declare.
pub const ENC_UNKNOWN_TARGET: &str = "E0305";
/// A target block's kind (STRUCT, PUBLISHABLE_STRUCT, MESSAGE, RPC) differs from the IDL's.
pub const ENC_TARGET_KIND: &str = "E0306";
/// A member names no field of the target (nor the type of exactly one field).
pub const ENC_UNKNOWN_FIELD: &str = "E0307";
/// A field (or an EXTEND) mentioned twice in one block.
pub const ENC_DUPLICATE_MEMBER: &str = "E0308";
/// A rule that does not apply to the field's type (FIXED_POINT on an INT, HUFFMAN on a BOOL,
/// a rule on a struct field, a DEFAULTS rule for the wrong category).
pub const ENC_RULE_TYPE_MISMATCH: &str = "E0309";
/// BIT(n) or UINTn/INTn too narrow for the field's range.
pub const ENC_RULE_TOO_NARROW: &str = "E0310";
/// A rule parameter out of bounds: BIT(0), VLQ(40), FIXED_POINT(0), a weight or a
/// DEAD_RECKONING limit not greater than 0.
pub const ENC_BAD_PARAMETER: &str = "E0311";
/// FIXED_POINT with so fine a resolution that it has more than 2^53 steps.
pub const ENC_FIXED_POINT_TOO_FINE: &str = "E0312";
/// `SEQUENCE<Name>` whose Name is not the element type of the field's sequence.
pub const ENC_SEQUENCE_MISMATCH: &str = "E0313";
/// A HUFFMAN weight for a name that is not an enumerator of the field's enum.
pub const ENC_HUFFMAN_UNKNOWN_ENUMERATOR: &str = "E0314";
/// HUFFMAN gives one enumerator two weights.
pub const ENC_HUFFMAN_DUPLICATE: &str = "E0315";
/// HUFFMAN gives some enumerators no weight.
pub const ENC_HUFFMAN_MISSING_WEIGHT: &str = "E0316";
/// HUFFMAN weights so skewed that a code exceeds 64 bits.
pub const ENC_HUFFMAN_CODE_TOO_LONG: &str = "E0317";
/// HUFFMAN in a BYTESTREAM encoding.
pub const ENC_HUFFMAN_BYTESTREAM: &str = "E0318";
/// DELTA or DEAD_RECKONING in a target that is not a PUBLISHABLE_STRUCT.
pub const ENC_NOT_PUBLISHABLE: &str = "E0319";
/// A DEAD_RECKONING block that is not N positions then N velocities, all plain fields.
pub const ENC_DEAD_RECKONING_SHAPE: &str = "E0320";
/// A DEAD_RECKONING field that is not NUMERIC.
pub const ENC_DEAD_RECKONING_NOT_NUMERIC: &str = "E0321";
/// DEAD_RECKONING without a limit whose first position is not FIXED_POINT.
pub const ENC_DEAD_RECKONING_NO_LIMIT: &str = "E0322";
/// A DELTA or DEAD_RECKONING block with fields from two segments (across a FENCE).
pub const ENC_BLOCK_SPANS_FENCE: &str = "E0323";
/// An encoding FENCE that does not stand where the IDL's does, or one the IDL lacks.
pub const ENC_FENCE_MISPLACED: &str = "E0324";
/// A member where it cannot stand: FENCE or EXTEND inside a DELTA block, anything in a
/// PROTOCOL block.
pub const ENC_MEMBER_NOT_ALLOWED: &str = "E0325";
/// `EXTEND f TO T` in an encoding with no matching EXTEND in the IDL.
pub const ENC_EXTEND_MISMATCH: &str = "E0326";
/// A DEFAULT in an encoding that differs from the IDL's.
pub const ENC_DEFAULT_MISMATCH: &str = "E0327";
/// A DEFAULT in an encoding on a field before any FENCE.
pub const ENC_DEFAULT_BEFORE_FENCE: &str = "E0328";
/// DIFF on a field without a baseline (no DELTA of its own, not in a DELTA or DEAD_RECKONING
/// block).
pub const ENC_DIFF_NO_BASELINE: &str = "E0329";
/// DIFF on a field whose rule has no steps (BOOL, HUFFMAN, floats, text, containers), or whose
/// slot a later EXTEND narrows.
pub const ENC_DIFF_NO_STEPS: &str = "E0330";
/// DIFF without tiers, or with a tier of 0 bits or wider than the field's steps.
pub const ENC_DIFF_TIERS: &str = "E0331";
/// A member names the type of exactly one field instead of the field (`Animation` for `anim`).
pub const ENC_TYPE_NAME_FOR_FIELD: &str = "W0301";
/// `VLQ(n)` with n != 7 in a BYTESTREAM, which always uses 7-bit groups.
pub const ENC_VLQ_GROUP_IN_BYTESTREAM: &str = "W0302";
/// FLOAT32 for a NUMERIC whose range reaches past the largest `f32`: such values are sent as it.
pub const ENC_FLOAT32_SATURATES: &str = "W0303";
/// A DIFF tier no wider than an earlier one: the encoder never uses it.
pub const ENC_DIFF_TIER_UNUSED: &str = "W0304";

/// Brackets nested deeper than the front ends accept.
pub const NESTING_TOO_DEEP: &str = "E0104";

/// An unbounded SEQUENCE of values that take no bits in an encoding: it needs a bound.
pub const ZERO_SIZE_SEQUENCE: &str = "E0329";

// E06xx: check-compat. One code per rule (`compat::Rule`); the rule's name is in the message.

/// check-compat `removed-item`: a struct, message, RPC, enum or protocol of OLD (or an entry of
/// a protocol) is gone in NEW.
pub const COMPAT_REMOVED_ITEM: &str = "E0601";
/// check-compat `kind-changed`: a name of OLD stands for another kind of item in NEW.
pub const COMPAT_KIND_CHANGED: &str = "E0602";
/// check-compat `removed-member`: a field, parameter or EXTEND of OLD is gone in NEW.
pub const COMPAT_REMOVED_MEMBER: &str = "E0603";
/// check-compat `changed-member`: a member of OLD is renamed, retyped, moved, or its DEFAULT or
/// EXTEND changed.
pub const COMPAT_CHANGED_MEMBER: &str = "E0604";
/// check-compat `changed-fence`: a FENCE of OLD is gone, or NEW puts one among OLD's members.
pub const COMPAT_CHANGED_FENCE: &str = "E0605";
/// check-compat `missing-fence`: members added after OLD's end without a FENCE before them.
pub const COMPAT_MISSING_FENCE: &str = "E0606";
/// check-compat `not-extension`: a new member among OLD's members instead of after OLD's end.
pub const COMPAT_NOT_EXTENSION: &str = "E0607";
/// check-compat `missing-default`: a new field or parameter without a DEFAULT.
pub const COMPAT_MISSING_DEFAULT: &str = "E0608";
/// check-compat `default-out-of-range`: a new field whose DEFAULT is not a value of its type.
pub const COMPAT_DEFAULT_OUT_OF_RANGE: &str = "E0609";
/// check-compat `narrowing-extend`: an EXTEND that does not widen.
pub const COMPAT_NARROWING_EXTEND: &str = "E0610";
/// check-compat `nested-not-open`: a nested struct grows although OLD did not end it with a
/// FENCE.
pub const COMPAT_NESTED_NOT_OPEN: &str = "E0611";
/// check-compat `enum-changed`: an enum of OLD changed in place.
pub const COMPAT_ENUM_CHANGED: &str = "E0612";
/// check-compat `wire-rule-changed`: a member of OLD is sent differently in an encoding.
pub const COMPAT_WIRE_RULE_CHANGED: &str = "E0613";
/// check-compat `removed-encoding`: an encoding of OLD is missing from NEW's encodings.
pub const COMPAT_REMOVED_ENCODING: &str = "E0614";

/// `idlc dissector`: a rule, an encoding or a name the Wireshark dissector cannot decode yet
/// (a BYTESTREAM, QUATERNION, a length with a rule of its own, two fields with one filter name).
pub const DISSECTOR_UNSUPPORTED: &str = "E0701";
/// check-compat: an `// idlc:allow(name)` comment whose name is no rule.
pub const COMPAT_UNKNOWN_ALLOW: &str = "W0601";
/// check-compat: an `// idlc:allow(rule)` comment that acknowledges no violation.
pub const COMPAT_UNUSED_ALLOW: &str = "W0602";
