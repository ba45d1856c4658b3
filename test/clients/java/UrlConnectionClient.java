import java.io.InputStream;
import java.net.Authenticator;
import java.net.HttpURLConnection;
import java.net.PasswordAuthentication;
import java.net.URI;
import java.nio.charset.StandardCharsets;

/**
 * HttpURLConnection with a java.net.Authenticator: challenge-driven, Basic or Digest (the JDK picks
 * Digest when both are offered unless -Dhttp.auth.preference=basic). Usage: BASE PATH BODY SCHEME MODE
 * USER PASSWORD; prints {"get":N,"post":N} or {"error":"..."}.
 */
public class UrlConnectionClient {
  static int send(String method, String url, String body) throws Exception {
    HttpURLConnection connection = (HttpURLConnection) URI.create(url).toURL().openConnection();
    connection.setRequestMethod(method);
    if (body != null) {
      connection.setDoOutput(true);
      connection.setRequestProperty("Content-Type", "application/json");
      connection.getOutputStream().write(body.getBytes(StandardCharsets.UTF_8));
    }
    int status = connection.getResponseCode();
    InputStream in = status < 400 ? connection.getInputStream() : connection.getErrorStream();
    if (in != null) in.readAllBytes();
    return status;
  }

  public static void main(String[] a) {
    String user = a[5], password = a[6];
    try {
      if (!a[4].equals("challenge")) throw new IllegalArgumentException("unsupported mode " + a[4]);
      Authenticator.setDefault(new Authenticator() {
        @Override
        protected PasswordAuthentication getPasswordAuthentication() {
          return new PasswordAuthentication(user, password.toCharArray());
        }
      });
      int get = send("GET", a[0] + a[1], null);
      int post = send("POST", a[0] + "/api/books", a[2]);
      System.out.println("{\"get\":" + get + ",\"post\":" + post + "}");
    } catch (Exception e) {
      System.out.println("{\"error\":\"" + String.valueOf(e).replace("\\", "\\\\").replace("\"", "\\\"") + "\"}");
    }
  }
}
