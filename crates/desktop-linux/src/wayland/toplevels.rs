//! The window list of a wlroots compositor without sway's IPC: the foreign-toplevel protocol
//! (`zwlr_foreign_toplevel_manager_v1`, what taskbars use) gives each window's title, app id
//! and state, and activates a window on request. It tells no window's position and no id a
//! client could name a window by, so windows joined with it have neither (`join`, pure).

use super::client::{synced, Client, TIMEOUT};
use desktop_core::model::WindowState;
use desktop_core::{Result, WindowInfo};
use wayland_client::protocol::wl_seat;
use wayland_client::{delegate_noop, event_created_child, Connection, Dispatch, QueueHandle};
use wayland_protocols_wlr::foreign_toplevel::v1::client::{
    zwlr_foreign_toplevel_handle_v1::{self as handle, ZwlrForeignToplevelHandleV1 as Handle},
    zwlr_foreign_toplevel_manager_v1::{self as manager, ZwlrForeignToplevelManagerV1 as Manager},
};

pub const GLOBAL: &str = "zwlr_foreign_toplevel_manager_v1";

/// One window as the compositor lists it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Toplevel {
    pub title: String,
    pub app_id: String,
    /// Minimized, maximized or full screen (minimized wins: it is not on screen at all).
    pub state: WindowState,
    /// It has the keyboard focus (`activated`, as xdg-toplevel means it).
    pub activated: bool,
}

/// One window's handle and what the compositor has told of it.
struct Entry {
    handle: Handle,
    top: Toplevel,
    /// All of its details have come.
    done: bool,
    /// It went away (the handle is still ours to destroy).
    closed: bool,
}

/// What the compositor has told this client.
#[derive(Default)]
struct Listing {
    windows: Vec<Entry>,
}

impl Listing {
    /// The windows still there.
    fn open(&self) -> impl Iterator<Item = &Entry> {
        self.windows.iter().filter(|e| !e.closed)
    }
}

delegate_noop!(Listing: ignore wl_seat::WlSeat);
synced!(Listing);

impl Dispatch<Manager, ()> for Listing {
    fn event(
        s: &mut Self,
        _: &Manager,
        e: manager::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let manager::Event::Toplevel { toplevel } = e {
            s.windows.push(Entry {
                handle: toplevel,
                top: Toplevel::default(),
                done: false,
                closed: false,
            });
        }
    }

    event_created_child!(Listing, Manager, [
        manager::EVT_TOPLEVEL_OPCODE => (Handle, ()),
    ]);
}

impl Dispatch<Handle, ()> for Listing {
    fn event(
        s: &mut Self,
        h: &Handle,
        e: handle::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        let Some(w) = s.windows.iter_mut().find(|w| w.handle == *h) else {
            return;
        };
        match e {
            handle::Event::Title { title } => w.top.title = title,
            handle::Event::AppId { app_id } => w.top.app_id = app_id,
            handle::Event::State { state } => (w.top.state, w.top.activated) = states(&state),
            handle::Event::Done => w.done = true,
            // Gone before we looked: not a window any more.
            handle::Event::Closed => w.closed = true,
            _ => {}
        }
    }
}

/// The protocol's state array (native-endian 32-bit values) as a window state and whether
/// the window is activated. Unknown values are skipped: later versions may add some.
pub fn states(raw: &[u8]) -> (WindowState, bool) {
    let values: Vec<u32> = raw
        .chunks_exact(4)
        .map(|c| u32::from_ne_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    let has = |s: handle::State| values.contains(&(s as u32));
    let state = if has(handle::State::Minimized) {
        WindowState::Minimized
    } else if has(handle::State::Fullscreen) {
        WindowState::Fullscreen
    } else if has(handle::State::Maximized) {
        WindowState::Maximized
    } else {
        WindowState::Normal
    };
    (state, has(handle::State::Activated))
}

/// A bound manager with every window's first details in.
struct Session<'a> {
    client: &'a Client,
    queue: wayland_client::EventQueue<Listing>,
    state: Listing,
    manager: Manager,
}

impl<'a> Session<'a> {
    /// `None` when the compositor does not offer the protocol.
    fn open(client: &'a Client) -> Result<Option<Session<'a>>> {
        let mut queue = client.conn.new_event_queue::<Listing>();
        let Some(manager) = client.bind::<Manager, Listing>(&queue.handle(), 3) else {
            return Ok(None);
        };
        let mut state = Listing::default();
        // The compositor announces every window, each followed by its details, as it
        // handles the bind: all of them precede the answer to a sync sent after it.
        client.sync(&mut queue, &mut state)?;
        client.wait(&mut queue, &mut state, TIMEOUT, |s| {
            s.open().all(|w| w.done)
        })?;
        Ok(Some(Session {
            client,
            queue,
            state,
            manager,
        }))
    }

    /// Stops the events and lets go of every handle, so nothing more arrives for a queue
    /// no one reads (a long-lived process lists windows again and again).
    fn close(mut self) {
        self.manager.stop();
        for w in &self.state.windows {
            w.handle.destroy();
        }
        let _ = self.client.sync(&mut self.queue, &mut self.state);
    }
}

/// The compositor's windows in the order it announced them; `None` without the protocol.
pub fn list(client: &Client) -> Result<Option<Vec<Toplevel>>> {
    let Some(session) = Session::open(client)? else {
        return Ok(None);
    };
    let out = session.state.open().map(|w| w.top.clone()).collect();
    session.close();
    Ok(Some(out))
}

/// Asks the compositor to give the focus to the window of app `app` (process `program`)
/// titled `title`, found as `join` finds it; whether a window was asked. The compositor may
/// refuse without saying so: the caller checks the focus it wanted.
pub fn activate(client: &Client, title: &str, app: &str, program: Option<&str>) -> Result<bool> {
    let Some(mut session) = Session::open(client)? else {
        return Ok(false);
    };
    let open: Vec<usize> = (0..session.state.windows.len())
        .filter(|&i| !session.state.windows[i].closed)
        .collect();
    let tops: Vec<&Toplevel> = open
        .iter()
        .map(|&i| &session.state.windows[i].top)
        .collect();
    let pick = find(&tops, title, app, program).map(|k| open[k]);
    let asked = match (pick, client.seat::<Listing>(&session.queue.handle())) {
        (Some(i), Some(seat)) => {
            if !session.state.windows[i].top.activated {
                session.state.windows[i].handle.activate(&seat);
                client.sync(&mut session.queue, &mut session.state)?;
            }
            true
        }
        _ => false,
    };
    session.close();
    Ok(asked)
}

/// The one toplevel of `tops` showing the window titled `title` of `app`: the same title
/// (of that app where several have it), else a title holding the other of that app, else
/// that app's only toplevel.
fn find(tops: &[&Toplevel], title: &str, app: &str, program: Option<&str>) -> Option<usize> {
    let of_app = |i: &usize| same_app(&tops[*i].app_id, app, program);
    let all = 0..tops.len();
    let titled: Vec<usize> = all
        .clone()
        .filter(|&i| !title.is_empty() && tops[i].title == title)
        .collect();
    if let [one] = titled.as_slice() {
        return Some(*one);
    }
    if let Some(i) = titled.iter().copied().find(of_app) {
        return Some(i);
    }
    let holding = |i: &usize| {
        let t = tops[*i].title.as_str();
        !title.is_empty() && !t.is_empty() && (t.contains(title) || title.contains(t))
    };
    if let Some(i) = all.clone().filter(holding).find(of_app) {
        return Some(i);
    }
    let mine: Vec<usize> = all.filter(of_app).collect();
    match mine.as_slice() {
        [one] => Some(*one),
        _ => None,
    }
}

/// A name reduced to its letters and digits, lowercase: `form_gtk.py` and `Form-GTK.py`,
/// `Google Chrome` and `google-chrome` are the same.
fn plain(s: &str) -> String {
    s.chars()
        .filter(char::is_ascii_alphanumeric)
        .flat_map(char::to_lowercase)
        .collect()
}

/// Whether an app id names the app known to the accessibility bus as `app` (or whose
/// program is `program`): the same name, or the last part of a reverse-domain id
/// (`org.gnome.Calculator`), `.desktop` left off.
fn same_app(app_id: &str, app: &str, program: Option<&str>) -> bool {
    let id = app_id.strip_suffix(".desktop").unwrap_or(app_id);
    let mut names = vec![plain(id)];
    if id.matches('.').count() >= 2 {
        names.extend(id.rsplit('.').next().map(plain));
    }
    let wanted = [Some(app), program];
    names.iter().filter(|n| !n.is_empty()).any(|n| {
        wanted
            .iter()
            .flatten()
            .any(|w| !w.is_empty() && plain(w) == *n)
    })
}

/// The accessibility windows of a session whose compositor tells no positions, joined with
/// its toplevels: by the same title (of the same app first), then a title holding the other (a browser adds its
/// name to the page's), both of the same app; then an app's one window left with its one
/// toplevel left (a frame with no name takes one only when it is its app's only frame:
/// Chromium keeps unnamed hidden frames that claim SHOWING). A joined window takes the
/// compositor's focus, state and, where its frame has no name, title. Toplevels nothing
/// joined are listed without a tree (`a11y: false`), except those of apps the query left
/// out (`skipped`, by name). The focused window comes first.
pub fn join(
    windows: Vec<WindowInfo>,
    tops: &[Toplevel],
    skipped: &[&str],
    program: impl Fn(u32) -> Option<String>,
) -> Vec<WindowInfo> {
    let programs: Vec<Option<String>> = windows
        .iter()
        .map(|w| (w.pid != 0).then(|| program(w.pid)).flatten())
        .collect();
    let app_of =
        |k: usize, t: &Toplevel| same_app(&t.app_id, &windows[k].app, programs[k].as_deref());
    let mut claimed = vec![false; tops.len()];
    let mut matched: Vec<Option<usize>> = vec![None; windows.len()];
    let title = |k: usize| windows[k].title.as_str();
    let mut pass = |fits: &dyn Fn(usize, &Toplevel) -> bool| {
        for (k, m) in matched.iter_mut().enumerate() {
            if m.is_some() {
                continue;
            }
            if let Some(i) = (0..tops.len()).find(|&i| !claimed[i] && fits(k, &tops[i])) {
                claimed[i] = true;
                *m = Some(i);
            }
        }
    };
    // Two apps' windows may share a title ("Untitled"): their own app's first.
    pass(&|k, t| !title(k).is_empty() && t.title == title(k) && app_of(k, t));
    pass(&|k, t| !title(k).is_empty() && t.title == title(k));
    pass(&|k, t| {
        let (a, b) = (title(k), t.title.as_str());
        !a.is_empty() && !b.is_empty() && (b.contains(a) || a.contains(b)) && app_of(k, t)
    });
    // An app's last window and last toplevel, each the only one left of that app.
    let same =
        |j: usize, k: usize| windows[j].app == windows[k].app && windows[j].pid == windows[k].pid;
    let frames = |k: usize| (0..windows.len()).filter(|&j| same(j, k)).count();
    for k in 0..windows.len() {
        let eligible = |j: usize, matched: &[Option<usize>]| {
            matched[j].is_none() && (!title(j).is_empty() || frames(j) == 1)
        };
        if !eligible(k, &matched) {
            continue;
        }
        let left_frames = (0..windows.len())
            .filter(|&j| same(j, k) && eligible(j, &matched))
            .count();
        let left_tops: Vec<usize> = (0..tops.len())
            .filter(|&i| !claimed[i] && app_of(k, &tops[i]))
            .collect();
        if let ([i], 1) = (left_tops.as_slice(), left_frames) {
            claimed[*i] = true;
            matched[k] = Some(*i);
        }
    }
    // The compositor's word on the focus outranks a frame's own.
    let told = tops.iter().any(|t| t.activated);
    let mut out: Vec<WindowInfo> = windows
        .into_iter()
        .zip(&matched)
        .map(|(mut w, m)| {
            // A toolkit's box of its own window starts at its corner: no place on screen.
            w.bounds = None;
            match m.map(|i| &tops[i]) {
                Some(t) => {
                    w.focused = t.activated;
                    w.state = t.state;
                    if w.title.is_empty() {
                        w.title = t.title.clone();
                    }
                }
                None if told => w.focused = false,
                None => {}
            }
            w
        })
        .collect();
    for (t, _) in tops.iter().zip(&claimed).filter(|(_, c)| !**c) {
        if skipped.iter().any(|s| same_app(&t.app_id, s, None)) {
            continue;
        }
        out.push(WindowInfo {
            app: if t.app_id.is_empty() {
                t.title.clone()
            } else {
                t.app_id.clone()
            },
            pid: 0,
            title: t.title.clone(),
            id: None,
            bounds: None,
            focused: t.activated,
            a11y: false,
            modal: false,
            state: t.state,
            display: None,
            handle: None,
        });
    }
    // No stacking order is told: the focused window on top, the rest as they came.
    out.sort_by_key(|w| !w.focused);
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use desktop_core::Rect;

    fn frame(app: &str, pid: u32, title: &str, focused: bool) -> WindowInfo {
        WindowInfo {
            app: app.into(),
            pid,
            title: title.into(),
            id: None,
            // A toolkit's own box of its window, from the window's corner.
            bounds: Some(Rect::new(0, 0, 640, 800)),
            focused,
            a11y: true,
            modal: false,
            state: WindowState::Normal,
            display: None,
            handle: None,
        }
    }

    fn top(title: &str, app_id: &str, activated: bool) -> Toplevel {
        Toplevel {
            title: title.into(),
            app_id: app_id.into(),
            state: WindowState::Normal,
            activated,
        }
    }

    fn programs(pid: u32) -> Option<String> {
        (pid == 30).then(|| "chromium".to_string())
    }

    /// As sway 1.7 lists the suite's windows: the GTK form, Chromium (its frame named by
    /// the page, its toplevel with the browser's name added) and gtk3-widget-factory (an
    /// unnamed frame).
    #[test]
    fn frames_join_by_title_then_app_and_take_focus_and_state() {
        let windows = vec![
            frame("form_gtk.py", 10, "GTK Form", true),
            frame("Chromium", 30, "Forms Page", false),
            frame("gtk3-widget-factory", 20, "", false),
        ];
        let mut factory = top("gtk3-widget-factory", "gtk3-widget-factory", false);
        factory.state = WindowState::Minimized;
        let tops = vec![
            top("Forms Page - Chromium", "chromium", true),
            top("GTK Form", "form_gtk.py", false),
            factory,
            top("Terminal", "foot", false),
        ];
        let out = join(windows, &tops, &[], programs);
        let titles: Vec<&str> = out.iter().map(|w| w.title.as_str()).collect();
        assert_eq!(
            titles,
            ["Forms Page", "GTK Form", "gtk3-widget-factory", "Terminal"],
            "the focused window first: {out:?}"
        );
        assert!(
            out[0].focused && !out[1].focused,
            "the compositor's focus wins"
        );
        assert_eq!(out[2].state, WindowState::Minimized);
        assert!(out.iter().all(|w| w.bounds.is_none() && w.id.is_none()));
        assert!(out[..3].iter().all(|w| w.a11y));
        let term = &out[3];
        assert!(
            !term.a11y && term.app == "foot" && term.pid == 0,
            "{term:?}"
        );
    }

    /// Two unnamed frames of one app (Chromium's hidden bubbles claim SHOWING) take no
    /// toplevel by app alone; a toplevel of an app the query skipped is left out.
    #[test]
    fn unnamed_frames_of_an_app_with_others_and_skipped_apps_stay_apart() {
        let windows = vec![
            frame("Chromium", 30, "Upload", false),
            frame("Chromium", 30, "", false),
        ];
        let tops = vec![
            top("Upload - Chromium", "chromium", false),
            top("Open File", "chromium", true),
            top("Calculator", "org.gnome.Calculator", false),
        ];
        let out = join(windows, &tops, &["calculator"], programs);
        let unnamed = out.iter().find(|w| w.a11y && w.title.is_empty());
        assert!(unnamed.is_some_and(|w| !w.focused), "{out:?}");
        let chooser = out.iter().find(|w| w.title == "Open File").unwrap();
        assert!(!chooser.a11y && chooser.focused, "{chooser:?}");
        assert!(out.iter().all(|w| w.title != "Calculator"), "{out:?}");
    }

    /// Windows of two apps with one title each take their own app's toplevel.
    #[test]
    fn a_shared_title_goes_to_its_own_app() {
        let windows = vec![
            frame("gedit", 1, "Untitled", false),
            frame("mousepad", 2, "Untitled", false),
        ];
        let tops = vec![
            top("Untitled", "org.xfce.mousepad", true),
            top("Untitled", "org.gnome.gedit", false),
        ];
        let out = join(windows, &tops, &[], |_| None);
        let mousepad = out.iter().find(|w| w.app == "mousepad").unwrap();
        assert!(mousepad.focused && out.len() == 2, "{out:?}");
    }

    /// Without any activated toplevel joined, a frame keeps its own word on the focus.
    #[test]
    fn a_frame_keeps_its_focus_when_the_compositor_names_none() {
        let out = join(vec![frame("app", 1, "Main", true)], &[], &[], |_| None);
        assert!(out[0].focused && out[0].bounds.is_none());
    }

    /// The window an action focuses: its title (of its app where two share it), a title
    /// holding its own, its app's only toplevel; nothing when that is not one.
    #[test]
    fn the_window_to_activate_is_found_as_joined() {
        let tops = [
            top("Forms Page - Chromium", "chromium", false),
            top("GTK Form", "form_gtk.py", false),
            top("GTK Form", "other.py", false),
            top("", "gtk3-widget-factory", false),
            top("a", "two", false),
            top("b", "two", false),
        ];
        let tops: Vec<&Toplevel> = tops.iter().collect();
        assert_eq!(find(&tops, "GTK Form", "other.py", None), Some(2));
        assert_eq!(find(&tops, "Forms Page", "Chromium", None), Some(0));
        assert_eq!(find(&tops, "", "gtk3-widget-factory", None), Some(3));
        assert_eq!(find(&tops, "c", "two", None), None);
        assert_eq!(find(&tops, "Forms Page", "x", Some("chromium")), Some(0));
    }

    #[test]
    fn app_ids_match_names_and_programs() {
        assert!(same_app("org.gnome.Calculator", "Calculator", None));
        assert!(same_app("form_gtk.py", "form_gtk.py", None));
        assert!(same_app("google-chrome", "Google Chrome", None));
        assert!(same_app("chromium", "Chromium", None));
        assert!(same_app(
            "chromium-browser.desktop",
            "x",
            Some("chromium-browser")
        ));
        assert!(!same_app("", "", None));
        assert!(!same_app("foot", "Chromium", Some("chromium")));
    }

    #[test]
    fn states_are_read_from_the_array() {
        let raw = |v: &[u32]| v.iter().flat_map(|x| x.to_ne_bytes()).collect::<Vec<u8>>();
        assert_eq!(states(&raw(&[])), (WindowState::Normal, false));
        assert_eq!(states(&raw(&[2])), (WindowState::Normal, true));
        assert_eq!(states(&raw(&[0, 2])), (WindowState::Maximized, true));
        assert_eq!(states(&raw(&[0, 3])), (WindowState::Fullscreen, false));
        assert_eq!(states(&raw(&[3, 1])), (WindowState::Minimized, false));
        // Values from later versions, and a torn array, are passed over.
        let mut torn = raw(&[2]);
        torn.extend([9, 9]);
        assert_eq!(states(&torn), (WindowState::Normal, true));
        assert_eq!(states(&raw(&[77])), (WindowState::Normal, false));
    }
}
