//! Command-line options (clap derive). `requests` turns them into the core's request and
//! option types, the one place where clap structs become what commands take.

mod requests;

use clap::{Args, Parser, Subcommand, ValueEnum};
use desktop_core::{Button, Direction};

/// Let AI agents see and operate a desktop: read any window's UI as a compact
/// accessibility tree, from the shell. Every command prints one JSON envelope:
/// {"version":"1","ok":true,"command":..,"data":..} or {"ok":false,"error":{code,message,suggestion}}.
/// The version and the commit it was built from (`git describe`-like; "unknown" outside a
/// checkout).
pub const VERSION: &str = concat!(
    env!("CARGO_PKG_VERSION"),
    " (",
    env!("DESKTOP_CLI_COMMIT"),
    ")"
);

#[derive(Debug, Parser)]
#[command(
    name = "desktop-cli",
    version = VERSION,
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
    /// Output format: json (the envelope) or text (readable, for people); csv (a table: read
    /// and list; columns in `schema csv`); for `screenshot`, the image format: png or jpg.
    #[arg(long, global = true, value_enum)]
    pub format: Option<Format>,
    /// Bound on every call to an app (milliseconds, or with a unit: 3s, 500ms); an app
    /// slower than this is APP_UNRESPONSIVE.
    #[arg(long, global = true, default_value = "3000", value_name = "MS", value_parser = positive_ms)]
    pub call_timeout: u64,
    /// Print where the time went to stderr.
    #[arg(long, global = true, hide = true)]
    pub timing: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Format {
    Json,
    Text,
    Csv,
    Png,
    #[value(alias = "jpeg")]
    Jpg,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// List windows (default) or applications.
    List(ListArgs),
    /// Read a window's UI as a compact element tree (the focused window by default).
    Read(ReadArgs),
    /// Click an element (by --id or --text) or a point (--x --y).
    Click(ClickArgs),
    /// Move the pointer onto an element (--id or --text) or a point (--x --y), to reveal
    /// hover menus and tooltips.
    Hover(ClickArgs),
    /// Type text (any Unicode), or a key combo with --key.
    Type(TypeArgs),
    /// Press key combos in turn: ctrl+shift+t, enter, super, f5 (tab tab enter).
    Press(PressArgs),
    /// Focus a window (--app/--window/--window-id/--pid) or an element (--id).
    Focus(FocusArgs),
    /// Turn the wheel at a point or inside an element, or bring an element into view.
    Scroll(ScrollArgs),
    /// Drag from one point or element to another.
    Drag(DragArgs),
    /// Set the text of a field or the value of a slider or spin button.
    SetValue(SetValueArgs),
    /// Check or uncheck a check box, switch or toggle button.
    Toggle(ElementCmdArgs),
    /// Run one of an element's own accessibility actions by name.
    Action(ActionArgs),
    /// Start a program and wait until its window can be read.
    Launch(LaunchArgs),
    /// Move, resize, minimize, maximize, restore, make full screen or close a window (the
    /// focused one by default); answers the window as it is afterwards.
    Window(WindowArgs),
    /// List the displays: name, bounds in screen coordinates, scale, primary, refresh rate.
    Displays,
    /// Open a menu item by its path ("File > Save As"): each level opened in turn, the last
    /// one activated.
    Menu(MenuArgs),
    /// Fill the open or save file chooser that is showing: the path into its file-name or
    /// location field, Enter, and the chooser seen to close.
    FileDialog(FileDialogArgs),
    /// Ask every window of an app to close; with --force, end its processes if they do not.
    CloseApp(CloseAppArgs),
    /// Wait until an element appears (or with --gone, disappears).
    Wait(WaitArgs),
    /// Stream a window's changes as JSON lines: snapshot, added, removed, changed, error, done.
    Observe(ObserveArgs),
    /// Capture the screen, a window, an element or a region as PNG or JPEG.
    Screenshot(ScreenshotArgs),
    /// Read, set or clear the clipboard (text).
    #[command(subcommand)]
    Clipboard(ClipboardCmd),
    /// Print the activity log: every action the CLI, the MCP server or the agent performed
    /// on this desktop, as JSON lines (--format text: one readable line each).
    Activity(ActivityArgs),
    /// Start, stop and use a headless desktop (Xvfb, D-Bus, AT-SPI) for agents and tests.
    #[command(subcommand)]
    #[cfg(target_os = "linux")]
    Sandbox(SandboxCmd),
    /// Check the display, buses and accessibility, and say how to fix what fails.
    Doctor,
    /// Serve every capability as MCP tools (stdio by default, or streamable HTTP).
    #[cfg(feature = "mcp")]
    Mcp(McpArgs),
    /// Show the desktop live on a local web page, with every action as it happens and a
    /// Stop button for agent runs (read-only otherwise); the URL with its token is printed.
    #[cfg(feature = "view")]
    View(ViewArgs),
    /// Carry out a goal in natural language: a model reads the UI and acts, step by step.
    #[cfg(feature = "agent")]
    Agent(Box<AgentArgs>),
    /// Ask a model one question about a window: describe it, locate an element, check a
    /// condition (exit status 0/1), extract information. Never acts.
    #[cfg(feature = "agent")]
    Ask(Box<AskArgs>),
    /// Internal: stay a client of every accessibility app of the bus in
    /// AT_SPI_BUS_ADDRESS until the bus goes (started by the first command that needs it).
    #[command(hide = true)]
    #[cfg(target_os = "linux")]
    Keeper,
    /// Print the JSON Schema of a command's `data` (all commands when none is named).
    Schema {
        /// list, read, sandbox, doctor, error
        command: Option<String>,
    },
    /// Print a shell completion script: source <(desktop-cli completions bash).
    Completions {
        /// bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print the manual page (roff), or write one page per command into --dir.
    Man {
        /// Folder for desktop-cli.1 and a page per command (desktop-cli-read.1, ...).
        #[arg(long, value_name = "DIR")]
        dir: Option<std::path::PathBuf>,
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

/// A duration in milliseconds: a plain number is milliseconds; `ms`, `s` and `m` units are
/// accepted (`500ms`, `8s`, `1.5s`, `2m`).
pub fn ms(s: &str) -> Result<u64, String> {
    duration(s, 1.0)
}

/// As [`ms`], but zero is refused (a bound of nothing would fail every call).
pub fn positive_ms(s: &str) -> Result<u64, String> {
    match ms(s)? {
        0 => Err("must be more than 0".into()),
        n => Ok(n),
    }
}

/// A duration in seconds: a plain number is seconds; `ms`, `s` and `m` units are accepted
/// (sub-second values round up to a whole second).
pub fn secs(s: &str) -> Result<u64, String> {
    let plain = s.trim().chars().all(|c| c.is_ascii_digit() || c == '.');
    let ms = duration(s, if plain { 1000.0 } else { 1.0 })?;
    Ok(ms.div_ceil(1000))
}

/// Parses `N`, `Nms`, `Ns` or `Nm` into milliseconds, a plain number counting `unit_ms`.
fn duration(s: &str, unit_ms: f64) -> Result<u64, String> {
    let t = s.trim();
    let (num, scale) = if let Some(n) = t.strip_suffix("ms") {
        (n, 1.0)
    } else if let Some(n) = t.strip_suffix('s') {
        (n, 1000.0)
    } else if let Some(n) = t.strip_suffix('m') {
        (n, 60_000.0)
    } else {
        (t, unit_ms)
    };
    let v: f64 = num
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not a duration (examples: 500, 500ms, 8s, 2m)"))?;
    if !v.is_finite() || v < 0.0 {
        return Err(format!("`{s}` is not a duration (it must be 0 or more)"));
    }
    let ms = (v * scale).round();
    if ms > 86_400_000.0 {
        return Err(format!("`{s}` is longer than a day"));
    }
    Ok(ms as u64)
}

/// A display number as X names it (`:1`) or bare (`1`): what `sandbox up` prints is taken back.
fn parse_display(s: &str) -> Result<u32, String> {
    s.strip_prefix(':')
        .unwrap_or(s)
        .parse()
        .map_err(|_| format!("`{s}` is not a display number (like 1 or :1)"))
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
    /// A browser window as its page only: the document and what is in it (its address is
    /// its value), without the browser's toolbar and tabs. Other windows are read whole.
    #[arg(long)]
    pub page: bool,
    /// Leave out each element's screen box (`b`): about half the tokens of a read, and ids
    /// are enough to act on elements.
    #[arg(long)]
    pub no_bounds: bool,
    /// Only element N (an id from an earlier read) and what it holds, with the same ids:
    /// opens a part of a big window, or a container a budgeted read showed collapsed.
    #[arg(long, value_name = "N")]
    pub id: Option<u32>,
    /// Fit the answer in about N tokens (o200k, estimated): what an agent acts on first,
    /// then text; containers that do not fit are shown collapsed with how many elements they
    /// hold (open one with --id). At least 100.
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u32).range(100..))]
    pub max_tokens: Option<u32>,
}

impl Command {
    /// Commands that print what the program is (completions, manual, schemas) touch no desktop and
    /// no state.
    pub fn is_offline(&self) -> bool {
        matches!(
            self,
            Command::Completions { .. }
                | Command::Man { .. }
                | Command::Schema { .. }
                | Command::Activity(_)
        )
    }

    /// `sandbox ...` manages sandboxes itself and must not adopt one's addresses.
    pub fn manages_sandboxes(&self) -> bool {
        #[cfg(target_os = "linux")]
        if matches!(self, Command::Sandbox(_)) {
            return true;
        }
        false
    }
}

#[derive(Debug, Subcommand)]
pub enum SandboxCmd {
    /// Start a sandbox on the first free display.
    Up {
        /// Screen size (of each display with --outputs), WIDTHxHEIGHT or WIDTHxHEIGHTxDEPTH.
        #[arg(long, default_value = "1280x800x24")]
        size: String,
        /// Displays side by side, the first primary (1 to 8).
        #[arg(long, default_value = "1", value_parser = clap::value_parser!(u32).range(1..=8))]
        outputs: u32,
        /// Start a window manager (openbox), which minimizing, maximizing and full screen
        /// need.
        #[arg(long)]
        wm: bool,
        /// A Wayland desktop instead of X11: a headless compositor (sway, or labwc with
        /// `--wayland labwc`), which manages the windows itself; programs started in it use
        /// Wayland (GTK, Qt, Chromium). labwc tells no window positions: input at points is
        /// refused there, accessibility acts and typing by id work.
        #[arg(long, value_name = "COMPOSITOR", num_args = 0..=1, default_missing_value = "sway",
              value_parser = ["sway", "labwc"])]
        wayland: Option<String>,
    },
    /// Stop a sandbox and everything it started.
    Down {
        /// Display number, `1` or `:1` (default: the sandbox in use).
        #[arg(long, value_parser = parse_display)]
        display: Option<u32>,
        /// Stop every sandbox of this user.
        #[arg(long, conflicts_with = "display")]
        all: bool,
    },
    /// Show running sandboxes.
    Status,
    /// Internal: the keyboard and pointer a Wayland sandbox keeps plugged in, held until
    /// the compositor goes away.
    #[command(hide = true)]
    Seat,
    /// Print `export` lines for a shell: eval "$(desktop-cli sandbox env)".
    Env {
        #[arg(long, value_parser = parse_display)]
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
        #[arg(long, value_parser = parse_display)]
        display: Option<u32>,
        /// The command and its arguments.
        #[arg(last = true, required = true, value_name = "CMD")]
        cmd: Vec<String>,
    },
}

/// Which element: an id from a `read` of its window, or its text.
#[derive(Debug, Args, Clone, Default)]
pub struct ElementArgs {
    /// Element id from any read of its window (the window --app/--window name, else the one read last).
    #[arg(long)]
    pub id: Option<u32>,
    /// The element whose name contains TEXT (case-insensitive); no prior read needed.
    #[arg(long, conflicts_with = "id")]
    pub text: Option<String>,
    /// With --text: only elements of this role (btn, lnk, input, ...).
    #[arg(long, requires = "text")]
    pub role: Option<String>,
    /// With --text: the whole name must equal TEXT.
    #[arg(long, requires = "text")]
    pub exact: bool,
}

#[derive(Debug, Args)]
pub struct ClickArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub element: ElementArgs,
    /// Screen x (with --y): click at a point instead of an element.
    #[arg(long, requires = "y", conflicts_with_all = ["id", "text"], allow_hyphen_values = true)]
    pub x: Option<i32>,
    #[arg(long, requires = "x", allow_hyphen_values = true)]
    pub y: Option<i32>,
    /// left, middle or right.
    #[arg(long, default_value = "left")]
    pub button: Button,
    /// Double-click.
    #[arg(long)]
    pub double: bool,
    /// Keys held during the click: ctrl, shift, alt, super (comma-separated), e.g.
    /// ctrl to add to a selection, shift for a range. Always released afterwards.
    #[arg(long, value_name = "MODS")]
    pub modifiers: Option<String>,
}

#[derive(Debug, Args)]
pub struct TypeArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// The text to type (or use --text); text that starts with a dash is typed as it is
    /// (`type -8`; `type -- --verbose` for text that is also an option's name).
    #[arg(conflicts_with_all = ["text", "key"], allow_hyphen_values = true)]
    pub input: Option<String>,
    /// The text to type.
    #[arg(long, conflicts_with = "key", allow_hyphen_values = true)]
    pub text: Option<String>,
    /// A key combo instead of text: ctrl+shift+t, enter, tab, super, f5.
    #[arg(long, value_name = "COMBO")]
    pub key: Option<String>,
    /// Milliseconds between keystrokes.
    #[arg(long, default_value = "0", value_name = "MS", value_parser = ms)]
    pub delay: u64,
    /// Type into this element (an id from a read): it is focused first, and the text
    /// goes after its existing text (on every toolkit).
    #[arg(long)]
    pub id: Option<u32>,
    /// With --id: replace the element's whole text instead of adding to it.
    #[arg(long, requires = "id")]
    pub replace: bool,
}

#[derive(Debug, Args)]
pub struct PressArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Key combos tapped in turn: ctrl+shift+t, enter, tab, super, f5, ...
    #[arg(required = true, num_args = 1.., value_name = "COMBO")]
    pub combos: Vec<String>,
    /// Tap the combos this many times.
    #[arg(long, default_value_t = 1, value_parser = clap::value_parser!(u32).range(1..=i64::from(desktop_core::keys::MAX_REPEAT)))]
    pub repeat: u32,
    /// Give this element (an id from a read) the focus first, and press the keys into it.
    #[arg(long)]
    pub id: Option<u32>,
}

#[derive(Debug, Args)]
pub struct FocusArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Focus this element (an id from a read) instead of the window.
    #[arg(long)]
    pub id: Option<u32>,
}

#[derive(Debug, Args)]
pub struct ScrollArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// up, down, left or right.
    #[arg(long, default_value = "down")]
    pub direction: Direction,
    /// Wheel notches.
    #[arg(long, default_value_t = 3)]
    pub amount: u32,
    /// Scroll at this point (with --y).
    #[arg(
        long,
        requires = "y",
        conflicts_with = "id",
        allow_hyphen_values = true
    )]
    pub x: Option<i32>,
    #[arg(long, requires = "x", allow_hyphen_values = true)]
    pub y: Option<i32>,
    /// Scroll inside this element (an id from a read).
    #[arg(long)]
    pub id: Option<u32>,
    /// With --id: let the app bring the element into view instead of turning the wheel.
    #[arg(long, requires = "id")]
    pub into_view: bool,
}

#[derive(Debug, Args)]
pub struct DragArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[arg(
        long,
        requires = "from_y",
        conflicts_with = "from_id",
        allow_hyphen_values = true
    )]
    pub from_x: Option<i32>,
    #[arg(long, requires = "from_x", allow_hyphen_values = true)]
    pub from_y: Option<i32>,
    #[arg(
        long,
        requires = "to_y",
        conflicts_with = "to_id",
        allow_hyphen_values = true
    )]
    pub to_x: Option<i32>,
    #[arg(long, requires = "to_x", allow_hyphen_values = true)]
    pub to_y: Option<i32>,
    /// Start at the center of this element (an id from a read).
    #[arg(long)]
    pub from_id: Option<u32>,
    /// End at the center of this element.
    #[arg(long)]
    pub to_id: Option<u32>,
}

#[derive(Debug, Args)]
pub struct SetValueArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub element: ElementArgs,
    /// The new text, or number for sliders and spin buttons.
    #[arg(long, allow_hyphen_values = true)]
    pub value: String,
}

#[derive(Debug, Args)]
pub struct ElementCmdArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub element: ElementArgs,
}

#[derive(Debug, Args)]
pub struct ActionArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub element: ElementArgs,
    /// The action's name, as `read --actions` lists it.
    #[arg(long)]
    pub name: String,
}

#[derive(Debug, Args)]
pub struct WindowArgs {
    #[command(subcommand)]
    pub op: WindowCmd,
}

#[derive(Debug, Subcommand)]
pub enum WindowCmd {
    /// Put the window's top-left corner at X,Y (screen coordinates, as list shows them;
    /// negative on a display left of or above the primary one).
    Move {
        #[arg(allow_negative_numbers = true)]
        x: i32,
        #[arg(allow_negative_numbers = true)]
        y: i32,
        #[command(flatten)]
        target: TargetArgs,
    },
    /// Make the window WIDTH by HEIGHT.
    Resize {
        width: i32,
        height: i32,
        #[command(flatten)]
        target: TargetArgs,
    },
    /// Minimize (iconify) the window.
    Minimize {
        #[command(flatten)]
        target: TargetArgs,
    },
    /// Maximize the window.
    Maximize {
        #[command(flatten)]
        target: TargetArgs,
    },
    /// Bring a minimized, maximized or full-screen window back to normal.
    Restore {
        #[command(flatten)]
        target: TargetArgs,
    },
    /// Make the window full screen.
    Fullscreen {
        #[command(flatten)]
        target: TargetArgs,
    },
    /// Ask the window to close, as its close button would; an app that asks first ("save
    /// changes?") is reported with its question, which is left unanswered.
    Close {
        #[command(flatten)]
        target: TargetArgs,
    },
}

#[derive(Debug, Args)]
pub struct MenuArgs {
    /// The levels, separated by >: "File > Save As" (case, mnemonics and a trailing … do
    /// not matter; a level may be the start of an item's name when only one starts so).
    #[arg(long)]
    pub path: String,
    #[command(flatten)]
    pub target: TargetArgs,
}

#[derive(Debug, Args)]
pub struct FileDialogArgs {
    /// The file to open or save (relative to the current folder, ~/ for home).
    #[arg(long)]
    pub path: String,
    /// What the chooser is for; refused when the one showing is for the other (taken from
    /// its Open or Save button when not given).
    #[arg(long, value_parser = ["open", "save"])]
    pub action: Option<String>,
    #[command(flatten)]
    pub target: TargetArgs,
}

#[derive(Debug, Args)]
pub struct CloseAppArgs {
    /// The app, as list shows it (its whole name, or a part naming one app only).
    pub app: String,
    /// End the app's processes when its windows have not closed (unsaved work is lost).
    #[arg(long)]
    pub force: bool,
    /// With --force: how long the app gets to end after being asked to, before it is
    /// killed (seconds, or with a unit).
    #[arg(long, default_value = "3", value_parser = secs, requires = "force")]
    pub grace: u64,
}

#[derive(Debug, Args)]
pub struct LaunchArgs {
    /// Seconds to wait for its window (or with a unit: 30s, 2m).
    #[arg(long, default_value = "30", value_parser = secs)]
    pub wait: u64,
    /// The program and its arguments.
    #[arg(
        required = true,
        trailing_var_arg = true,
        allow_hyphen_values = true,
        value_name = "COMMAND"
    )]
    pub cmd: Vec<String>,
}

#[derive(Debug, Args)]
pub struct ScreenshotArgs {
    /// Capture this window's area (it is raised first).
    #[command(flatten)]
    pub target: TargetArgs,
    /// Capture one element (an id from a read).
    #[arg(long, conflicts_with = "region")]
    pub id: Option<u32>,
    /// Capture a screen rectangle: x,y,w,h.
    #[arg(long, value_name = "X,Y,W,H", allow_hyphen_values = true)]
    pub region: Option<String>,
    /// JPEG quality, 1-100.
    #[arg(long, default_value_t = 80)]
    pub quality: u8,
    /// Scale factor 0.1-1.0 (image pixels per screen pixel).
    #[arg(long, default_value_t = 0.5)]
    pub scale: f64,
    /// Shrink further (below --scale) so the longer side is at most PX pixels.
    #[arg(long, value_name = "PX", value_parser = clap::value_parser!(u32).range(16..))]
    pub max_edge: Option<u32>,
    /// Write the image here instead of returning it as base64.
    #[arg(long, value_name = "PATH")]
    pub output: Option<std::path::PathBuf>,
    /// Draw each interactive element's box and id (set-of-marks); the ids work with click --id.
    #[arg(long, value_name = "MODE", num_args = 0..=1, default_missing_value = "ids", value_parser = ["ids"])]
    pub annotate: Option<String>,
    /// Draw a labelled coordinate grid (screen pixels; lines every 50, labels every 200).
    #[arg(long)]
    pub grid: bool,
    /// Draw a crosshair on the pointer, labelled with its screen coordinates (move it with hover).
    #[arg(long)]
    pub cursor: bool,
    /// Add a magnified inset of the area around the pointer, in a corner away from it, with a fine grid every 10 screen pixels.
    #[arg(long)]
    pub inset: bool,
    /// The inset's side in image pixels, 64-800 (less on a small image).
    #[arg(long, value_name = "PX", default_value_t = 200, requires = "inset")]
    pub inset_size: u32,
    /// The inset's magnification over the screenshot, 2-16.
    #[arg(long, value_name = "N", default_value_t = 4, requires = "inset")]
    pub inset_zoom: u32,
    /// Write the image's size, scale and origin at its bottom edge (always done with --annotate, --grid, --cursor or --inset).
    #[arg(long)]
    pub banner: bool,
}

#[derive(Debug, Subcommand)]
pub enum ClipboardCmd {
    /// Print the clipboard's text (never takes the clipboard from its owner).
    Get,
    /// Put text on the clipboard; it stays there after this command exits (from stdin when no text is given).
    Set {
        text: Option<String>,
        #[arg(long = "text", conflicts_with = "text")]
        text_opt: Option<String>,
    },
    /// Empty the clipboard.
    Clear,
    /// Internal: hold the clipboard with the text read from stdin until another client takes it.
    #[command(hide = true)]
    #[cfg(target_os = "linux")]
    Serve,
}

#[derive(Debug, Args)]
pub struct WaitArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// An element whose name, value or description contains TEXT (case-insensitive).
    #[arg(long)]
    pub for_text: Option<String>,
    /// An element of this role (with --for-text: both must hold).
    #[arg(long)]
    pub for_role: Option<String>,
    /// The element with this id (from a read; with --gone: until it is gone).
    #[arg(long, conflicts_with_all = ["for_text", "for_role"])]
    pub for_id: Option<u32>,
    /// Wait until no element matches instead.
    #[arg(long)]
    pub gone: bool,
    /// Give up after this many milliseconds (TIMEOUT, saying what was last seen).
    #[arg(long, default_value = "10000", value_name = "MS", value_parser = ms)]
    pub timeout: u64,
    /// Milliseconds between reads.
    #[arg(long, default_value = "250", value_name = "MS", value_parser = positive_ms)]
    pub interval: u64,
}

#[derive(Debug, Args)]
pub struct ActivityArgs {
    /// Keep printing actions as they are logged, until interrupted.
    #[arg(long)]
    pub follow: bool,
    /// Only actions of the last DURATION: 90s, 10m, 2h, 7d.
    #[arg(long, value_name = "DURATION", value_parser = age)]
    pub since: Option<std::time::Duration>,
    /// Only actions on this app or window title (a part of it, any case).
    #[arg(long, value_name = "NAME")]
    pub app: Option<String>,
}

/// An age: a number with a unit of s, m, h or d.
fn age(s: &str) -> Result<std::time::Duration, String> {
    let t = s.trim();
    let unit = t.chars().last().unwrap_or('?');
    let secs = match unit {
        's' => 1,
        'm' => 60,
        'h' => 3600,
        'd' => 86_400,
        _ => return Err(format!("`{s}` needs a unit (examples: 90s, 10m, 2h, 7d)")),
    };
    let n: u64 = t[..t.len() - 1]
        .trim()
        .parse()
        .map_err(|_| format!("`{s}` is not an age (examples: 90s, 10m, 2h, 7d)"))?;
    n.checked_mul(secs)
        .filter(|v| *v <= 3650 * 86_400)
        .map(std::time::Duration::from_secs)
        .ok_or_else(|| format!("`{s}` is longer than ten years"))
}

#[derive(Debug, Args)]
pub struct ObserveArgs {
    #[command(flatten)]
    pub target: TargetArgs,
    /// Levels below the window to follow.
    #[arg(long, value_name = "N")]
    pub depth: Option<u32>,
    /// Only these roles, comma-separated.
    #[arg(long)]
    pub roles: Option<String>,
    /// Milliseconds between reads when the app sends no change events (with events, a slow
    /// safety read every 10 s at most).
    #[arg(long, default_value = "1000", value_name = "MS", value_parser = positive_ms)]
    pub interval: u64,
    /// Stop after this many seconds (0: until Ctrl+C).
    #[arg(long, default_value = "0", value_name = "SECS", value_parser = secs)]
    pub duration: u64,
    /// Only elements that are showing and on screen (default true).
    #[arg(long, value_name = "BOOL", default_value_t = true, num_args = 0..=1, default_missing_value = "true", action = clap::ArgAction::Set)]
    pub visible_only: bool,
    /// Leave out position changes.
    #[arg(long)]
    pub ignore_bounds: bool,
    /// Leave out focus changes.
    #[arg(long)]
    pub ignore_focus: bool,
}

#[cfg(feature = "mcp")]
#[derive(Debug, Args)]
pub struct McpArgs {
    /// Serve streamable HTTP on ADDR:PORT (path /mcp) instead of stdio.
    #[arg(long, value_name = "ADDR:PORT")]
    pub http: Option<String>,
    /// Accept clients from other hosts (they need the bearer token like every client).
    #[arg(long, requires = "http")]
    pub allow_remote: bool,
    /// Bearer token clients must send (Authorization: Bearer TOKEN); also DESKTOP_CLI_MCP_TOKEN.
    /// Without one a token is generated and written to a file only you can read (its path
    /// is printed on stderr).
    #[arg(long, env = "DESKTOP_CLI_MCP_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Read the bearer token from this file (a mounted secret, for instance).
    #[arg(long, value_name = "PATH", requires = "http", conflicts_with = "token")]
    pub token_file: Option<std::path::PathBuf>,
    /// Serve without a token: loopback binds only, and then any local user can drive the
    /// desktop.
    #[arg(long, requires = "http", conflicts_with_all = ["token", "token_file"])]
    pub no_token: bool,
    /// A web origin whose pages may call the server (scheme://host[:port]; repeatable).
    /// Requests carrying any other Origin are refused (403); on a loopback bind, loopback
    /// origins are allowed too.
    #[arg(long, value_name = "ORIGIN", requires = "http")]
    pub allow_origin: Vec<String>,
    /// Serve only these tools (comma-separated or repeated): --tools read,list_windows,screenshot
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub tools: Vec<String>,
    /// Leave these tools out (comma-separated or repeated).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub exclude_tools: Vec<String>,
    /// Serve only the tools that read (list, read, find, screenshot, wait, observe, clipboard
    /// get): eyes without hands.
    #[arg(long)]
    pub read_only: bool,
    /// Advertise each tool's output schema (for hosts that validate results with them;
    /// they add about 45% to the tool list every session pays for).
    #[arg(long)]
    pub output_schemas: bool,
}

#[cfg(feature = "view")]
#[derive(Debug, Args)]
pub struct ViewArgs {
    /// Where to serve the page (port 0: any free port).
    #[arg(long, value_name = "ADDR:PORT", default_value = "127.0.0.1:0")]
    pub listen: String,
    /// Accept viewers from other hosts (they need the token like every viewer).
    #[arg(long)]
    pub allow_remote: bool,
    /// The token viewers must send (?token= or Authorization: Bearer); also
    /// DESKTOP_CLI_VIEW_TOKEN. Without one a random token is made and shown in the URL.
    #[arg(long, env = "DESKTOP_CLI_VIEW_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
    /// Read the token from this file.
    #[arg(long, value_name = "PATH", conflicts_with = "token")]
    pub token_file: Option<std::path::PathBuf>,
    /// Serve without a token: loopback binds only, and then any local user can watch.
    #[arg(long, conflicts_with_all = ["token", "token_file"])]
    pub no_token: bool,
    /// Widest frame sent to the page, in pixels (frames keep the screen's proportions).
    #[arg(long, value_name = "PX", default_value_t = 1280, value_parser = clap::value_parser!(u32).range(160..=7680))]
    pub width: u32,
}

/// When the agent asks before acting.
#[cfg(feature = "agent")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum Confirm {
    /// Launching programs, typing into terminals, system key combos, apps outside --allow-app.
    Risky,
    /// Every action.
    All,
    /// No action (apps outside --allow-app are then refused instead of asked about).
    Never,
}

/// How the model answers.
#[cfg(feature = "agent")]
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ToolFormat {
    /// The provider's tool (function) calls with strict JSON schemas.
    Native,
    /// A JSON object {"steps":[...],"done":...} in the reply text, for models without tool calling.
    Json,
}

/// Which model answers, shared by `agent` and `ask`; each overrides agent.toml.
#[cfg(feature = "agent")]
#[derive(Debug, Args)]
pub struct ModelArgs {
    /// anthropic, openai (Chat Completions) or openai-responses.
    #[arg(long)]
    pub provider: Option<String>,
    #[arg(long)]
    pub model: Option<String>,
    /// Used when the model keeps failing after the retries.
    #[arg(long)]
    pub fallback_model: Option<String>,
    /// A server speaking the provider's protocol (llama.cpp, vLLM, Ollama): http://127.0.0.1:8080
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Settings file (default ~/.config/desktop-cli/agent.toml).
    #[arg(long, value_name = "PATH")]
    pub config: Option<std::path::PathBuf>,
    /// Longest model reply, in tokens (default 2048).
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// Seconds to wait for one model reply (default 120).
    #[arg(long, value_name = "S", value_parser = secs)]
    pub model_timeout: Option<u64>,
}

/// What the model is shown of the window, shared by `agent` and `ask`.
#[cfg(feature = "agent")]
#[derive(Debug, Args)]
pub struct LookArgs {
    /// Send no screenshots (text-only models); the element tree alone.
    #[arg(long)]
    pub no_screenshot: bool,
    /// Draw a coordinate grid on the screenshots.
    #[arg(long)]
    pub grid: bool,
    /// Put each element's screen rectangle in the tree sent to the model (always without a
    /// screenshot); by default the screenshot shows where things are, at half the tokens.
    #[arg(long)]
    pub tree_bounds: bool,
    /// Cap on the element tree sent each time, in tokens (default 6000).
    #[arg(long, default_value_t = 6000)]
    pub tree_tokens: usize,
    /// Show a browser's own toolbar and tabs in the tree too; by default a browser window is
    /// shown as its page (its address is the web element's value).
    #[arg(long)]
    pub browser_controls: bool,
}

/// `ask`: one question to a model about a window; it never acts.
#[cfg(feature = "agent")]
#[derive(Debug, Args)]
#[command(group(clap::ArgGroup::new("question").required(true).args(["describe", "locate", "check", "extract"])))]
pub struct AskArgs {
    /// Describe the window.
    #[arg(long)]
    pub describe: bool,
    /// Find the element fitting a description ("the red Subscribe button"): its id, or a point.
    #[arg(long, value_name = "DESCRIPTION")]
    pub locate: Option<String>,
    /// Whether a condition holds: exit status 0 when it does, 1 when not.
    #[arg(long, value_name = "CONDITION")]
    pub check: Option<String>,
    /// Read information off the window ("the order number").
    #[arg(long, value_name = "QUERY")]
    pub extract: Option<String>,
    /// The window (default: the focused window).
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    #[command(flatten)]
    pub look: LookArgs,
    /// Keep the exchange (request, screenshot, answer) in this folder.
    #[arg(long, value_name = "DIR")]
    pub transcript: Option<std::path::PathBuf>,
    /// A secret to blank from what the model sees and says: NAME=env:VAR or NAME=file:PATH.
    #[arg(long = "secret", value_name = "NAME=SOURCE")]
    pub secrets: Vec<String>,
}

#[cfg(feature = "agent")]
#[derive(Debug, Args)]
pub struct AgentArgs {
    /// What to do, in plain words ("fill the form with ... and submit it"); `-` reads it
    /// from standard input. Without one (and without --goal-file or --replay) it is asked for
    /// on the terminal. `agent report DIR` builds a run's report again (as --report DIR).
    pub goal: Option<String>,
    /// The transcript folder of `agent report DIR`.
    #[arg(hide = true)]
    pub report_dir: Option<std::path::PathBuf>,
    /// Read the goal from this file (`-`: standard input).
    #[arg(long, value_name = "PATH", conflicts_with_all = ["goal", "replay"])]
    pub goal_file: Option<std::path::PathBuf>,
    /// The window to start in (default: the focused window).
    #[command(flatten)]
    pub target: TargetArgs,
    #[command(flatten)]
    pub model: ModelArgs,
    /// Most actions to take (default 20).
    #[arg(long)]
    pub max_steps: Option<u32>,
    /// Ask before: risky actions (default), all actions, or never.
    #[arg(long, value_enum)]
    pub confirm: Option<Confirm>,
    /// Apps the agent may act on freely (repeat or comma-separate); others need confirmation.
    #[arg(long = "allow-app", value_delimiter = ',')]
    pub allow_apps: Vec<String>,
    /// Plan and show the actions, act on nothing.
    #[arg(long)]
    pub dry_run: bool,
    /// Ask the model for the whole plan up front; run it without looking, fall back to the
    /// loop when a step fails.
    #[arg(long)]
    pub plan: bool,
    /// native tool calls, or the JSON step contract for models without tool calling.
    #[arg(long, value_enum, default_value_t = ToolFormat::Native)]
    pub tool_format: ToolFormat,
    #[command(flatten)]
    pub look: LookArgs,
    /// Folder for this run's transcript and screenshots (default
    /// ~/.local/state/desktop-cli/runs/<time>).
    #[arg(long, value_name = "DIR")]
    pub transcript: Option<std::path::PathBuf>,
    /// A secret the model may type without seeing it: NAME=env:VAR or NAME=file:PATH
    /// (repeatable). The model writes {{secret:NAME}}; the value goes only into password
    /// fields and is blanked everywhere else.
    #[arg(long = "secret", value_name = "NAME=SOURCE")]
    pub secrets: Vec<String>,
    /// Also let secret NAME go into fields whose name contains FIELD (a user name field):
    /// NAME=FIELD (repeatable).
    #[arg(long = "secret-field", value_name = "NAME=FIELD")]
    pub secret_fields: Vec<String>,
    /// Re-execute the actions a transcript recorded, finding elements again by role and name.
    #[arg(long, value_name = "DIR", conflicts_with = "goal")]
    pub replay: Option<std::path::PathBuf>,
    /// Build the report page (report.html) of an earlier run's transcript folder again, and
    /// run nothing (every run writes its own at its end).
    #[arg(long, value_name = "DIR", conflicts_with_all = ["goal", "goal_file", "replay"])]
    pub report: Option<std::path::PathBuf>,
    /// Where --report (or `agent report DIR`) writes the page (default: report.html in the
    /// folder).
    #[arg(long, visible_alias = "output", value_name = "FILE")]
    pub report_output: Option<std::path::PathBuf>,
}

#[cfg(test)]
mod tests {
    use super::{ms, parse_display, positive_ms, secs};

    #[test]
    fn displays_as_x_names_them_or_bare() {
        assert_eq!(parse_display(":1"), Ok(1));
        assert_eq!(parse_display("500"), Ok(500));
        for bad in ["", ":", "::1", "x", "-1", ":1.0"] {
            assert!(parse_display(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn durations_take_units() {
        assert_eq!(ms("500"), Ok(500));
        assert_eq!(ms("500ms"), Ok(500));
        assert_eq!(ms("8s"), Ok(8000));
        assert_eq!(ms("1.5s"), Ok(1500));
        assert_eq!(ms("2m"), Ok(120_000));
        assert_eq!(ms(" 0 "), Ok(0));
        for bad in [
            "",
            "-1",
            "abc",
            "5h",
            "nan",
            "inf",
            "1e400",
            "99999999999999",
        ] {
            assert!(ms(bad).is_err(), "{bad}");
        }
        assert!(positive_ms("0").is_err());
        assert!(positive_ms("0s").is_err());
        assert_eq!(secs("30"), Ok(30));
        assert_eq!(secs("500ms"), Ok(1));
        assert_eq!(secs("2m"), Ok(120));
    }
}
