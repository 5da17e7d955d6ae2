//! What the binary's test files share: running `quire` commands, and a server process
//! that a test may kill outright.

// Each test file uses part of this module.
#![allow(dead_code)]

use std::{
    net::TcpListener,
    path::Path,
    process::{Child, Command, Stdio},
    time::Duration,
};

use serde_json::json;

pub(crate) const QUIRE: &str = env!("CARGO_BIN_EXE_quire");

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

pub(crate) fn quire(args: &[&str], data_dir: &Path) -> std::process::Output {
    Command::new(QUIRE)
        .args(args)
        .env("QUIRE_DATA_DIR", data_dir)
        .env("QUIRE_LOG", "warn")
        .output()
        .unwrap()
}

/// The server's log, kept in its data directory for a failing test to be read
/// (`QUIRE_TEST_SERVER_LOG=debug` for more).
fn server_log(data_dir: &Path) -> Stdio {
    let file =
        std::fs::OpenOptions::new().create(true).append(true).open(data_dir.join("server.log"));
    file.map(Stdio::from).unwrap_or(Stdio::null())
}

pub(crate) struct Server {
    child: Child,
    pub(crate) url: String,
}

impl Server {
    pub(crate) fn start(data_dir: &Path) -> Server {
        Server::start_with(data_dir, &[])
    }

    /// A server on `data_dir` with `quire serve`'s other flags `args`.
    pub(crate) fn start_with(data_dir: &Path, args: &[&str]) -> Server {
        let port = free_port();
        let child = Command::new(QUIRE)
            .args(["serve", "--listen", &format!("127.0.0.1:{port}")])
            .args(args)
            .env("QUIRE_DATA_DIR", data_dir)
            .env("QUIRE_LOG", std::env::var("QUIRE_TEST_SERVER_LOG").unwrap_or("warn".into()))
            .stdout(Stdio::null())
            .stderr(server_log(data_dir))
            .spawn()
            .unwrap();
        let mut server = Server { child, url: format!("http://127.0.0.1:{port}") };
        // Until it answers, or exits: no time limit (CI's own limit catches a hang).
        while ureq::get(&format!("{}/admin/health", server.url)).call().is_err() {
            if let Some(status) = server.child.try_wait().unwrap() {
                panic!("the server exited before serving: {status}");
            }
            // A pause, not a deadline: spinning would take the core the server starts on.
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }

    pub(crate) fn login(&self, tenant: &str, password: &str) -> String {
        let r = ureq::post(&format!("{}/authn/login", self.url))
            .set("x-okapi-tenant", tenant)
            .send_json(json!({"username": "admin", "password": password}))
            .unwrap();
        r.header("x-okapi-token").unwrap().to_string()
    }

    /// Uploads `file` as a MARC file through the web client's API and starts its import
    /// with FOLIO's default create-instance profile; returns the job's id.
    pub(crate) fn start_import(
        &self,
        tenant: &str,
        token: &str,
        name: &str,
        file: &[u8],
    ) -> String {
        let call = |method: &str, path: &str| {
            ureq::request(method, &format!("{}{path}", self.url))
                .set("x-okapi-tenant", tenant)
                .set("x-okapi-token", token)
        };
        let definition: serde_json::Value = call("POST", "/data-import/uploadDefinitions")
            .send_json(json!({"fileDefinitions": [{"name": name}]}))
            .unwrap()
            .into_json()
            .unwrap();
        let id = definition["id"].as_str().unwrap();
        let file_id = definition["fileDefinitions"][0]["id"].as_str().unwrap();
        let uploaded: serde_json::Value =
            call("POST", &format!("/data-import/uploadDefinitions/{id}/files/{file_id}"))
                .send_bytes(file)
                .unwrap()
                .into_json()
                .unwrap();
        let profile = json!({"id": "e34d7b92-9b83-11eb-a8b3-0242ac130003", "name": "Default - Create instance and SRS MARC Bib", "dataType": "MARC"});
        call("POST", &format!("/data-import/uploadDefinitions/{id}/processFiles"))
            .send_json(json!({"uploadDefinition": uploaded, "jobProfileInfo": profile}))
            .unwrap();
        definition["fileDefinitions"][0]["jobExecutionId"].as_str().unwrap().to_string()
    }

    pub(crate) fn kill(mut self) {
        // SIGKILL: no shutdown hook runs.
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `n` MARC records: the shared bibliographic records over and over, each with its own
/// 001 (`prefix` and its number).
pub(crate) fn numbered_marc(n: usize, prefix: &str) -> Vec<u8> {
    let shared = concat!(env!("CARGO_MANIFEST_DIR"), "/../../../shared/data/marc/");
    let mut records = Vec::new();
    for file in ["100.mrc", "61PRINT160129.mrc", "CornellFOLIOExemplars.mrc"] {
        let bytes = std::fs::read(format!("{shared}{file}")).unwrap();
        records.extend(marc::Reader::new(bytes.as_slice()).lenient().map(|r| r.unwrap().0));
    }
    let mut out = Vec::new();
    for i in 0..n {
        let mut record = records[i % records.len()].clone();
        record.fields_mut().retain(|f| f.tag().as_str() != "001");
        record.fields_mut().insert(
            0,
            marc::Field::control(marc::Tag::new("001").unwrap(), format!("{prefix}{i}")).unwrap(),
        );
        out.extend(marc::encode(&record).unwrap());
    }
    out
}
