//! GTK 4, which says SHOWING only of windows and names unlabelled widgets after their
//! class: gtk4-widget-factory read page by page (pages switched by tabs named with and
//! without their mnemonic underscore), and a form of our own filled field after field:
//! two entries, a check button, a spin button, a scale, a drop-down and a button.

use crate::{all, find, id_of, ids_of_role, Env, Test, FACTORY, GTK4};

pub const TESTS: &[(&str, Test)] = &[
    ("gtk4::factory_shows_the_page_in_view_only", factory_pages),
    ("gtk4::form_filled_field_after_field", form),
];

const ROUNDS: usize = 3;

fn factory_pages(env: &Env) {
    let data = env.ok(&["read", "--window", FACTORY, "-i"]);
    let checks = all(&data)
        .iter()
        .filter(|e| e["r"] == "chk" && e["t"] == "checkbutton")
        .count();
    assert_eq!(checks, 6, "page 1's six check buttons: {data}");
    for e in all(&data) {
        let name = e["t"].as_str().unwrap_or("");
        assert!(!name.starts_with("Gtk"), "a class name for a name: {e}");
        assert!(!name.contains('_'), "a mnemonic underscore: {e}");
    }
    assert!(
        !all(&data).iter().any(|e| e["t"] == "News"),
        "page 2 shows on page 1: {data}"
    );
    for _ in 0..ROUNDS {
        // With the underscore, as GTK names the tab, and without, as it reads.
        let r = env.ok(&[
            "click", "--window", FACTORY, "--text", "Page _2", "--role", "tab",
        ]);
        assert_eq!(r["effect"], "confirmed", "{r}");
        assert_eq!(env.fields().read(FACTORY)["Page _2"]["selected"], true);
        // GTK 4.18 slides the new page in: until the slide ends the old one shows, as an
        // agent that waits for what it expects finds.
        env.ok(&[
            "wait",
            "--window",
            FACTORY,
            "--for-text",
            "News",
            "--timeout",
            "3000",
        ]);
        let data = env.ok(&["read", "--window", FACTORY, "-i"]);
        assert!(all(&data).iter().any(|e| e["t"] == "News"), "{data}");
        assert!(
            !all(&data).iter().any(|e| e["t"] == "checkbutton"),
            "{data}"
        );
        let r = env.ok(&[
            "click", "--window", FACTORY, "--text", "Page 1", "--role", "tab",
        ]);
        assert_eq!(r["effect"], "confirmed", "{r}");
        assert_eq!(env.fields().read(FACTORY)["Page _1"]["selected"], true);
        env.ok(&[
            "wait",
            "--window",
            FACTORY,
            "--for-text",
            "checkbutton",
            "--timeout",
            "3000",
        ]);
        let data = env.ok(&["read", "--window", FACTORY, "-i"]);
        assert!(all(&data).iter().any(|e| e["t"] == "checkbutton"), "{data}");
    }
}

fn form(env: &Env) {
    let fruits = ["Banana", "cherry", "Apple"];
    for round in 0..ROUNDS {
        let data = env.ok(&["read", "--window", GTK4, "-i"]);
        let inputs = ids_of_role(&data, "input");
        let (name, city) = (format!("Ada{round}"), format!("Paris{round}"));
        env.ok(&["type", "--id", &inputs[0], &name, "--replace"]);
        env.ok(&["type", "--id", &inputs[1], &city, "--replace"]);
        let agree = id_of(&data, "chk", "Agree");
        let r = env.ok(&["toggle", "--id", &agree]);
        assert_eq!(r["effect"], "confirmed", "{r}");
        let count = (40 + round).to_string();
        let r = env.ok(&[
            "set-value",
            "--id",
            &ids_of_role(&data, "spin")[0],
            "--value",
            &count,
        ]);
        assert_eq!(r["effect"], "confirmed", "{r}");
        let level = (70 + round).to_string();
        let r = env.ok(&[
            "set-value",
            "--id",
            &ids_of_role(&data, "slider")[0],
            "--value",
            &level,
        ]);
        assert_eq!(r["effect"], "confirmed", "{r}");
        let fruit = fruits[round % 3];
        let r = env.ok(&[
            "set-value",
            "--id",
            &ids_of_role(&data, "combo")[0],
            "--value",
            fruit,
        ]);
        assert_eq!(
            r["value"].as_str().unwrap().to_lowercase(),
            fruit.to_lowercase(),
            "{r}"
        );
        env.ok(&["click", "--id", &id_of(&data, "btn", "Send")]);
        let agreed = if round % 2 == 0 { "True" } else { "False" };
        let want = format!(
            "name: {name}; city: {city}; agree: {agreed}; count: {count}; level: {level}; fruit: {}; page: form; sent: {}",
            capitalised(fruit),
            round + 1
        );
        env.status(GTK4, "sent:", &want);
        // The combo reads as the option it shows: its value, or its name where GTK names it
        // so (4.18; a value that repeats the name is left out).
        let data = env.ok(&["read", "--window", GTK4, "-i"]);
        let combo = all(&data).into_iter().find(|e| e["r"] == "combo").unwrap();
        let shown = if combo["v"].is_null() {
            &combo["t"]
        } else {
            &combo["v"]
        };
        assert_eq!(shown, &capitalised(fruit), "{combo}");
    }
    // The other page, by its tab named with a mnemonic, and back.
    let r = env.ok(&[
        "click", "--window", GTK4, "--text", "_Extras", "--role", "tab",
    ]);
    assert_eq!(r["effect"], "confirmed", "{r}");
    env.status(GTK4, "sent:", "page: extras");
    let data = env.ok(&["read", "--window", GTK4, "-i"]);
    assert!(!all(&data).iter().any(|e| e["t"] == "Agree"), "{data}");
    find(&data, "btn", "Extra action");
    env.ok(&["click", "--window", GTK4, "--text", "Form", "--role", "tab"]);
    env.status(GTK4, "sent:", "page: form");
}

fn capitalised(s: &str) -> String {
    let mut c = s.chars();
    c.next()
        .map(|f| f.to_uppercase().chain(c).collect())
        .unwrap_or_default()
}
