//! Command-line options (clap derive), turned into core settings by each command.

use clap::{Args, Parser, Subcommand, ValueEnum};

/// Let AI agents see and operate a desktop: read any window's UI as a compact
/// accessibility tree, from the shell. Every command prints one JSON envelope:
/// {"version":"1","ok":true,"command":..,"data":..} or {"ok":false,"error":{code,message,suggestion}}.
#[derive(Debug, Parser)]
#[command(
    name = "desktop-cli",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
    #[command(flatten)]
    pub global: Global,
}

#[derive(Debug, Args, Clone)]
pub struct Global {
    /// Pretty-print JSON.
    #[arg(long, global = true)]
    pub pretty: bool,
    /// Output format: json (the envelope) or text (readable, for people).
    #[arg(long, global = true, value_enum, default_value_t = Format::Json)]
    pub format: Format,
    /// Bound on every call to an app, in milliseconds; an app slower than this is APP_UNRESPONSIVE.
    #[arg(long, global = true, default_value_t = 3000, value_name = "MS")]
    pub timeout: u64,
    /// Print where the time went to stderr.
    #[arg(long, global = true, hide = true)]
    pub timing: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Json,
    Text,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List windows (default) or applications.
    List(ListArgs),
    /// Read a window's UI as a compact element tree (the focused window by default).
    Read(ReadArgs),
    /// Start, stop and use a headless desktop (Xvfb, D-Bus, AT-SPI) for agents and tests.
    #[command(subcommand)]
    Sandbox(SandboxCmd),
    /// Check the display, buses and accessibility, and say how to fix what fails.
    Doctor,
    /// Print the JSON Schema of a command's `data` (all commands when none is named).
    Schema {
        /// list, read, sandbox, doctor, error
        command: Option<String>,
    },
}

/// Which window: every set option must match.
#[derive(Debug, Args, Clone, Default)]
pub struct TargetArgs {
    /// Application name (case-insensitive, exact or substring).
    #[arg(long)]
    pub app: Option<String>,
    /// Window title substring (case-insensitive).
    #[arg(long)]
    pub window: Option<String>,
    /// Window id as `list` prints it (decimal, or hex with 0x).
    #[arg(long, value_name = "ID", value_parser = parse_window_id)]
    pub window_id: Option<u64>,
    /// Process id.
    #[arg(long)]
    pub pid: Option<u32>,
}

fn parse_window_id(s: &str) -> Result<u64, String> {
    let parsed = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => s.parse(),
    };
    parsed.map_err(|_| format!("`{s}` is not a window id (decimal or 0x-hex)"))
}

#[derive(Debug, Args)]
pub struct ListArgs {
    /// List windows (the default).
    #[arg(long, conflicts_with = "apps")]
    pub windows: bool,
    /// List applications instead of windows.
    #[arg(long)]
    pub apps: bool,
    /// Only windows of this application.
    #[arg(long)]
    pub app: Option<String>,
    /// Only windows of this process.
    #[arg(long)]
    pub pid: Option<u32>,
}

#[derive(Debug, Args)]
pub struct ReadArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Levels below the window to read (1 = its direct children).
    #[arg(long, value_name = "N")]
    pub depth: Option<u32>,
    /// Only these roles, comma-separated (btn,input,lnk,...); others are skipped, their children kept.
    #[arg(long, value_name = "ROLES")]
    pub roles: Option<String>,
    /// Only elements that are showing and on screen (default true; --visible-only=false for all).
    #[arg(long, value_name = "BOOL", default_value_t = true, num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub visible_only: bool,
    /// Only elements intersecting this screen rectangle: x,y,w,h.
    #[arg(long, value_name = "X,Y,W,H", allow_hyphen_values = true)]
    pub bbox: Option<String>,
    /// Only elements whose name, value or description contains TEXT (case-insensitive), with their ancestors.
    #[arg(long)]
    pub text: Option<String>,
    /// Only elements an agent can act on, and the named containers that hold them.
    #[arg(short = 'i', long)]
    pub interactive: bool,
    /// Flatten the tree: one list, no `c` children.
    #[arg(long)]
    pub compact: bool,
    /// Keep every element the toolkit reports (no dropping of unnamed containers and repeated labels).
    #[arg(long)]
    pub full: bool,
    /// List each element's own accessibility actions (`a`), as `action --name` takes them.
    #[arg(long)]
    pub actions: bool,
    /// Show at most N elements; the output says how many were left out.
    #[arg(long, value_name = "N")]
    pub max_elements: Option<usize>,
}

#[derive(Debug, Subcommand)]
pub enum SandboxCmd {
    /// Start a sandbox on the first free display.
    Up {
        /// Screen size, WIDTHxHEIGHT or WIDTHxHEIGHTxDEPTH.
        #[arg(long, default_value = "1280x800x24")]
        size: String,
    },
    /// Stop a sandbox and everything it started.
    Down {
        /// Display number (default: the sandbox in use).
        #[arg(long)]
        display: Option<u32>,
        /// Stop every sandbox of this user.
        #[arg(long, conflicts_with = "display")]
        all: bool,
    },
    /// Show running sandboxes.
    Status,
    /// Print `export` lines for a shell: eval "$(desktop-cli sandbox env)".
    Env {
        #[arg(long)]
        display: Option<u32>,
    },
    /// Run a command inside the sandbox in use (or, with none running or --fresh, in a new one stopped afterwards).
    Run {
        /// Always start a new sandbox for this command and stop it afterwards.
        #[arg(long)]
        fresh: bool,
        /// Start the command in the background and return its pid; `sandbox down` stops it.
        #[arg(long, conflicts_with = "fresh")]
        detach: bool,
        #[arg(long)]
        display: Option<u32>,
        /// The command and its arguments.
        #[arg(last = true, required = true, value_name = "CMD")]
        cmd: Vec<String>,
    },
}
