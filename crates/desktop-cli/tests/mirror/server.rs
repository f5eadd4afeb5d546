//! The page's server: `churn.html` and, at `/step`, the command the test last set.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

pub struct Server {
    port: u16,
    step: Arc<Mutex<String>>,
}

impl Server {
    pub fn start(page: &std::path::Path) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let step = Arc::new(Mutex::new("0 0 0".to_string()));
        let html = std::fs::read(page).unwrap();
        let shared = step.clone();
        std::thread::spawn(move || {
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let mut first = String::new();
                let mut reader = BufReader::new(&stream);
                if reader.read_line(&mut first).is_err() {
                    continue;
                }
                // The rest of the request's head.
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|n| n > 2) {
                    line.clear();
                }
                let (kind, body) = if first.starts_with("GET /step") {
                    ("text/plain", shared.lock().unwrap().clone().into_bytes())
                } else {
                    ("text/html; charset=utf-8", html.clone())
                };
                let head = format!(
                    "HTTP/1.1 200 OK\r\nContent-Type: {kind}\r\nContent-Length: {}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n",
                    body.len()
                );
                let _ = stream.write_all(head.as_bytes());
                let _ = stream.write_all(&body);
            }
        });
        Server { port, step }
    }

    pub fn url(&self) -> String {
        format!("http://127.0.0.1:{}/churn.html", self.port)
    }

    pub fn set_step(&self, line: &str) {
        *self.step.lock().unwrap() = line.to_string();
    }
}
