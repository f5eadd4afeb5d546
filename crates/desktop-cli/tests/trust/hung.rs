//! One stopped app costs only its own commands: commands aimed at other apps take about
//! their usual time, and the stopped app answers `APP_UNRESPONSIVE` at once.

use crate::{Env, Test, GTK};
use rustix::process::{kill_process, Pid, Signal};
use std::time::{Duration, Instant};

pub const TESTS: &[(&str, Test)] = &[("hung::a_stopped_app_slows_nothing_else", stopped_app)];

/// Median wall time of `runs` runs of a command that must succeed.
fn median(env: &Env, args: &[&str], runs: usize) -> Duration {
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let t = Instant::now();
            let run = env.cli(args);
            let took = t.elapsed();
            assert_eq!(run.code, 0, "{args:?}: {}", run.stdout);
            took
        })
        .collect();
    times.sort();
    times[runs / 2]
}

fn stopped_app(env: &Env) {
    let commands: [&[&str]; 3] = [
        &["list"],
        &["read", "--window", GTK, "-i"],
        &["click", "--text", "Increment", "--window", GTK, "--exact"],
    ];
    let normal: Vec<Duration> = commands.iter().map(|c| median(env, c, 5)).collect();
    let pid = Pid::from_raw(env.victim_pid as i32).unwrap();
    kill_process(pid, Signal::STOP).unwrap();
    let result = std::panic::catch_unwind(|| {
        for (c, usual) in commands.iter().zip(&normal) {
            let took = median(env, c, 5);
            let bound = usual.mul_f64(1.5) + Duration::from_millis(100);
            assert!(
                took <= bound,
                "{c:?} took {took:?} with an app stopped, {usual:?} before"
            );
        }
        let list = env.ok(&["list"]);
        assert!(
            list["unresponsive"].as_array().is_some_and(|u| u
                .iter()
                .any(|u| u["pid"] == env.victim_pid
                    && u["app"] == "gtk3-demo"
                    && u["code"] == "APP_UNRESPONSIVE")),
            "{list}"
        );
        let t = Instant::now();
        let run = env.cli(&["read", "--app", "gtk3-demo", "--call-timeout", "2s"]);
        assert_eq!(run.error_code(), "APP_UNRESPONSIVE", "{}", run.stdout);
        assert!(
            run.stdout.contains("gtk3-demo"),
            "names the app: {}",
            run.stdout
        );
        assert!(
            t.elapsed() < Duration::from_secs(3),
            "took {:?}",
            t.elapsed()
        );
    });
    kill_process(pid, Signal::CONT).unwrap();
    if let Err(e) = result {
        std::panic::resume_unwind(e);
    }
}
