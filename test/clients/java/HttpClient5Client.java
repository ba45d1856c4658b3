import java.util.List;
import org.apache.hc.client5.http.auth.AuthScope;
import org.apache.hc.client5.http.auth.StandardAuthScheme;
import org.apache.hc.client5.http.auth.UsernamePasswordCredentials;
import org.apache.hc.client5.http.classic.methods.HttpGet;
import org.apache.hc.client5.http.classic.methods.HttpPost;
import org.apache.hc.client5.http.classic.methods.HttpUriRequestBase;
import org.apache.hc.client5.http.config.RequestConfig;
import org.apache.hc.client5.http.impl.auth.BasicCredentialsProvider;
import org.apache.hc.client5.http.impl.auth.BasicScheme;
import org.apache.hc.client5.http.impl.classic.CloseableHttpClient;
import org.apache.hc.client5.http.impl.classic.HttpClients;
import org.apache.hc.client5.http.protocol.HttpClientContext;
import org.apache.hc.core5.http.ContentType;
import org.apache.hc.core5.http.HttpHost;
import org.apache.hc.core5.http.io.entity.EntityUtils;
import org.apache.hc.core5.http.io.entity.StringEntity;

/**
 * Apache HttpClient 5: challenge-driven Basic or Digest (the preferred scheme set per cell), or
 * preemptive Basic through the context's auth exchange. One client and context for both requests.
 * Usage: BASE PATH BODY SCHEME MODE USER PASSWORD; prints {"get":N,"post":N} or {"error":"..."}.
 */
public class HttpClient5Client {
  public static void main(String[] a) {
    String base = a[0], scheme = a[3], mode = a[4], user = a[5], password = a[6];
    try {
      HttpHost host = HttpHost.create(base);
      UsernamePasswordCredentials credentials = new UsernamePasswordCredentials(user, password.toCharArray());
      BasicCredentialsProvider provider = new BasicCredentialsProvider();
      provider.setCredentials(new AuthScope(host), credentials);
      HttpClientContext context = HttpClientContext.create();
      context.setRequestConfig(RequestConfig.custom()
          .setTargetPreferredAuthSchemes(List.of(scheme.equals("digest") ? StandardAuthScheme.DIGEST : StandardAuthScheme.BASIC))
          .build());
      if (mode.equals("preemptive")) {
        if (!scheme.equals("basic")) throw new IllegalArgumentException("unsupported cell " + scheme + "/" + mode);
        BasicScheme basic = new BasicScheme();
        basic.initPreemptive(credentials);
        context.resetAuthExchange(host, basic);
      }
      try (CloseableHttpClient client = HttpClients.custom().setDefaultCredentialsProvider(provider).build()) {
        HttpUriRequestBase post = new HttpPost(base + "/api/books");
        post.setEntity(new StringEntity(a[2], ContentType.APPLICATION_JSON));
        int get = client.execute(new HttpGet(base + a[1]), context, r -> { EntityUtils.consume(r.getEntity()); return r.getCode(); });
        int created = client.execute(post, context, r -> { EntityUtils.consume(r.getEntity()); return r.getCode(); });
        System.out.println("{\"get\":" + get + ",\"post\":" + created + "}");
      }
    } catch (Exception e) {
      System.out.println("{\"error\":\"" + String.valueOf(e).replace("\\", "\\\\").replace("\"", "\\\"") + "\"}");
    }
  }
}
