// The Go client of the matrix (test/e2e/auth-client-matrix.test.ts): net/http with SetBasicAuth
// (preemptive Basic) or github.com/icholy/digest's Transport (challenge-driven Digest).
// Usage: go-client BASE PATH BODY SCHEME MODE USER PASSWORD; prints {"get":N,"post":N} or {"error":"..."}.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"github.com/icholy/digest"
)

func main() {
	base, path, body, scheme, mode, user, password := os.Args[1], os.Args[2], os.Args[3], os.Args[4], os.Args[5], os.Args[6], os.Args[7]
	client := &http.Client{}
	if scheme == "digest" && mode == "challenge" {
		client.Transport = &digest.Transport{Username: user, Password: password}
	} else if !(scheme == "basic" && mode == "preemptive") {
		fail(fmt.Errorf("unsupported cell %s/%s", scheme, mode))
	}
	send := func(method, url, body string) int {
		var reader io.Reader
		if body != "" {
			reader = strings.NewReader(body)
		}
		request, err := http.NewRequest(method, url, reader)
		if err != nil {
			fail(err)
		}
		if body != "" {
			request.Header.Set("Content-Type", "application/json")
		}
		if scheme == "basic" {
			request.SetBasicAuth(user, password)
		}
		response, err := client.Do(request)
		if err != nil {
			fail(err)
		}
		defer response.Body.Close()
		io.Copy(io.Discard, response.Body)
		return response.StatusCode
	}
	get := send("GET", base+path, "")
	post := send("POST", base+"/api/books", body)
	out, _ := json.Marshal(map[string]int{"get": get, "post": post})
	fmt.Println(string(out))
}

func fail(err error) {
	out, _ := json.Marshal(map[string]string{"error": err.Error()})
	fmt.Println(string(out))
	os.Exit(0)
}
