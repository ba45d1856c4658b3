//! The Rust client of the matrix (test/e2e/auth-client-matrix.test.ts): reqwest's `basic_auth`
//! (preemptive Basic) or diqwest's `DigestAuthSession` (challenge-driven Digest, one session for
//! both requests). Usage: rust-client BASE PATH BODY SCHEME MODE USER PASSWORD; prints
//! {"get":N,"post":N} or {"error":"..."}.
use diqwest::{DigestAuthSession, WithDigestAuth};
use reqwest::{Client, RequestBuilder};

async fn send(request: RequestBuilder, scheme: &str, user: &str, password: &str, session: &DigestAuthSession) -> Result<u16, String> {
    let response = if scheme == "digest" {
        request.send_digest_auth(session).await.map_err(|e| e.to_string())?
    } else {
        request.basic_auth(user, Some(password)).send().await.map_err(|e| e.to_string())?
    };
    Ok(response.status().as_u16())
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let a: Vec<String> = std::env::args().collect();
    let (base, path, body, scheme, mode, user, password) = (&a[1], &a[2], &a[3], a[4].as_str(), a[5].as_str(), &a[6], &a[7]);
    let supported = (scheme == "digest" && mode == "challenge") || (scheme == "basic" && mode == "preemptive");
    let client = Client::new();
    let session = DigestAuthSession::new(user.as_str(), password.as_str());
    let result = async {
        if !supported {
            return Err(format!("unsupported cell {scheme}/{mode}"));
        }
        let get = send(client.get(format!("{base}{path}")), scheme, user, password, &session).await?;
        let post = client
            .post(format!("{base}/api/books"))
            .header("content-type", "application/json")
            .body(body.clone());
        let post = send(post, scheme, user, password, &session).await?;
        Ok((get, post))
    }
    .await;
    match result {
        Ok((get, post)) => println!("{}", serde_json::json!({ "get": get, "post": post })),
        Err(error) => println!("{}", serde_json::json!({ "error": error })),
    }
}
