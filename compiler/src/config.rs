//! `idlc.toml`: the project file that names the inputs, so that `idlc gen` needs no arguments.
//!
//! ```toml
//! idl = ["schemas/game.idl"]
//! encodings = ["schemas/s2c.enc"]     # common to every side (optional)
//! mappings = []                       # common to every side (optional)
//! out = "src/net/game.rs"             # where `gen` writes when there are no sides (optional)
//!
//! [sides.Client]
//! encodings = ["schemas/s2c.enc"]     # optional: replaces the common list for this side
//! mappings = ["schemas/client.map"]   # optional: replaces the common list for this side
//! out = "src/net/client.rs"           # optional: where `gen` writes this side
//!
//! [sides.Server]
//! mappings = ["schemas/server.map"]
//! out = "src/net/server.rs"
//! ```
//!
//! Relative paths are relative to the directory of the `idlc.toml`. Sides keep the order of the
//! file: the first one is the side of `check`, `ir` and `report` when `--side` is not given.

use std::path::{Path, PathBuf};

use indexmap::IndexMap;
use serde::Deserialize;
use toml::Spanned;

/// The name of the project file.
pub const FILE_NAME: &str = "idlc.toml";

/// A parsed `idlc.toml`, with every path made relative to the directory that holds it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Config {
    /// IDL files (their IMPORTs are followed).
    pub idl: Vec<PathBuf>,
    /// Encoding files common to every side.
    pub encodings: Vec<PathBuf>,
    /// Mapping files common to every side.
    pub mappings: Vec<PathBuf>,
    /// Where `gen` writes when no side is chosen (no `[sides.*]`, or none picked).
    pub out: Option<PathBuf>,
    /// The sides, in the order of the file.
    pub sides: IndexMap<String, SideConfig>,
}

/// One `[sides.NAME]` table.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct SideConfig {
    /// Encoding files of this side; `None`: the common list.
    pub encodings: Option<Vec<PathBuf>>,
    /// Mapping files of this side; `None`: the common list.
    pub mappings: Option<Vec<PathBuf>>,
    /// Where `gen` writes this side.
    pub out: Option<PathBuf>,
}

impl SideConfig {
    /// The encodings of this side: its own list, else `config`'s common one.
    pub fn encodings<'a>(&'a self, config: &'a Config) -> &'a [PathBuf] {
        self.encodings.as_deref().unwrap_or(&config.encodings)
    }

    /// The mappings of this side: its own list, else `config`'s common one.
    pub fn mappings<'a>(&'a self, config: &'a Config) -> &'a [PathBuf] {
        self.mappings.as_deref().unwrap_or(&config.mappings)
    }
}

/// Why an `idlc.toml` could not be used.
#[derive(Debug)]
pub enum ConfigError {
    /// The file could not be read.
    Read(PathBuf, std::io::Error),
    /// The file is not valid TOML or not the expected shape (the message has line and column).
    Parse(PathBuf, toml::de::Error),
}

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConfigError::Read(path, e) => write!(f, "cannot read `{}`: {e}", path.display()),
            ConfigError::Parse(path, e) => {
                write!(
                    f,
                    "invalid `{}`: {}",
                    path.display(),
                    e.to_string().trim_end()
                )
            }
        }
    }
}

impl std::error::Error for ConfigError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawConfig {
    #[serde(default)]
    idl: Vec<PathBuf>,
    #[serde(default)]
    encodings: Vec<PathBuf>,
    #[serde(default)]
    mappings: Vec<PathBuf>,
    #[serde(default)]
    out: Option<PathBuf>,
    #[serde(default)]
    sides: IndexMap<String, Spanned<RawSide>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawSide {
    #[serde(default)]
    encodings: Option<Vec<PathBuf>>,
    #[serde(default)]
    mappings: Option<Vec<PathBuf>>,
    #[serde(default)]
    out: Option<PathBuf>,
}

impl Config {
    /// Reads and parses the `idlc.toml` at `path`.
    pub fn load(path: &Path) -> Result<Config, ConfigError> {
        let text =
            std::fs::read_to_string(path).map_err(|e| ConfigError::Read(path.to_path_buf(), e))?;
        let base = path.parent().unwrap_or(Path::new(""));
        Config::parse(&text, base).map_err(|e| ConfigError::Parse(path.to_path_buf(), e))
    }

    /// Parses the text of an `idlc.toml`; relative paths are joined to `base` (its directory).
    pub fn parse(text: &str, base: &Path) -> Result<Config, toml::de::Error> {
        let raw: RawConfig = toml::from_str(text)?;
        let join = |p: PathBuf| if p.is_absolute() { p } else { base.join(p) };
        let join_all = |v: Vec<PathBuf>| v.into_iter().map(join).collect::<Vec<_>>();
        // toml hands tables over sorted by key: restore the order of the file from the spans.
        let mut sides: Vec<(String, Spanned<RawSide>)> = raw.sides.into_iter().collect();
        sides.sort_by_key(|(_, side)| side.span().start);
        Ok(Config {
            idl: join_all(raw.idl),
            encodings: join_all(raw.encodings),
            mappings: join_all(raw.mappings),
            out: raw.out.map(join),
            sides: sides
                .into_iter()
                .map(|(name, side)| {
                    let side = side.into_inner();
                    let config = SideConfig {
                        encodings: side.encodings.map(join_all),
                        mappings: side.mappings.map(join_all),
                        out: side.out.map(join),
                    };
                    (name, config)
                })
                .collect(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const EXAMPLE: &str = r#"
idl = ["schemas/game.idl"]
encodings = ["schemas/s2c.enc"]

[sides.Server]
mappings = ["schemas/server.map"]
out = "src/net/server.rs"

[sides.Client]
encodings = ["schemas/s2c.enc", "/abs/s2s.enc"]
mappings = ["schemas/client.map"]
out = "src/net/client.rs"

[sides.Bot]
"#;

    #[test]
    fn paths_are_relative_to_the_file_and_sides_keep_their_order() {
        let config = Config::parse(EXAMPLE, Path::new("proj")).unwrap();
        assert_eq!(config.idl, vec![PathBuf::from("proj/schemas/game.idl")]);
        assert_eq!(
            config.encodings,
            vec![PathBuf::from("proj/schemas/s2c.enc")]
        );
        assert_eq!(config.out, None);
        let names: Vec<&str> = config.sides.keys().map(String::as_str).collect();
        assert_eq!(names, ["Server", "Client", "Bot"]);
        let client = &config.sides["Client"];
        assert_eq!(
            client.encodings(&config),
            [
                PathBuf::from("proj/schemas/s2c.enc"),
                PathBuf::from("/abs/s2s.enc")
            ]
        );
        assert_eq!(client.out, Some(PathBuf::from("proj/src/net/client.rs")));
        let server = &config.sides["Server"];
        assert_eq!(server.encodings(&config), config.encodings.as_slice());
        assert_eq!(
            server.mappings(&config),
            [PathBuf::from("proj/schemas/server.map")]
        );
        let bot = &config.sides["Bot"];
        assert_eq!(bot, &SideConfig::default());
        assert!(bot.mappings(&config).is_empty());
    }

    #[test]
    fn in_the_current_directory_paths_stay_as_written() {
        let config = Config::parse("idl = [\"a.idl\"]\nout = \"x.rs\"\n", Path::new("")).unwrap();
        assert_eq!(config.idl, vec![PathBuf::from("a.idl")]);
        assert_eq!(config.out, Some(PathBuf::from("x.rs")));
        assert!(config.sides.is_empty());
    }

    #[test]
    fn errors_have_a_line_and_column() {
        let error = Config::parse("idl = [\"a.idl\"\n", Path::new("")).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("line 1"), "{text}");
        let error = Config::parse("idl = \"a.idl\"\n", Path::new("")).unwrap_err();
        assert!(error.to_string().contains("line 1"), "{error}");
        let error =
            Config::parse("idl = []\n[sides.A]\nmapping = []\n", Path::new("")).unwrap_err();
        let text = error.to_string();
        assert!(text.contains("line 3"), "{text}");
        assert!(text.contains("mapping"), "{text}");
    }
}
