import java.lang.reflect.Field;
import org.eclipse.jetty.server.Connector;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import software.amazon.dynamodb.services.local.main.ServerRunner;
import software.amazon.dynamodb.services.local.server.DynamoDBProxyServer;

/**
 * Starts DynamoDB Local listening on one address: 127.0.0.1, or the system property
 * dynamodb.local.host (the Docker bridge's address for `sam local`). DynamoDB Local has no option
 * for the address and binds every interface; its server is built from the usual command-line
 * arguments here, and its Jetty connector is pointed at the address before it starts. Run in Java's
 * source-file mode (java LoopbackDynamoDbLocal.java ...) with DynamoDB Local on the class path. It
 * stops when its parent does (see exitWhenParentDoes).
 */
public class LoopbackDynamoDbLocal {
  public static void main(String[] args) throws Exception {
    String host = System.getProperty("dynamodb.local.host", "127.0.0.1");
    DynamoDBProxyServer proxy = ServerRunner.createServerFromCommandLineArgs(args);
    int bound = 0;
    for (Field field : DynamoDBProxyServer.class.getDeclaredFields()) {
      if (!Server.class.isAssignableFrom(field.getType())) continue;
      field.setAccessible(true);
      for (Connector connector : ((Server) field.get(proxy)).getConnectors()) {
        ((ServerConnector) connector).setHost(host);
        bound++;
      }
    }
    // Fail rather than silently listen on every interface if a new DynamoDB Local is built differently.
    if (bound == 0) throw new IllegalStateException("DynamoDB Local's HTTP connector was not found");
    exitWhenParentDoes();
    proxy.start();
  }

  /**
   * The process that started this one holds the other end of its standard input: when that process
   * ends, however it ends (a crash or SIGKILL included), the pipe reaches end of file and DynamoDB
   * Local stops with it instead of running on, orphaned, on the same data folder.
   */
  private static void exitWhenParentDoes() {
    Thread watcher = new Thread(() -> {
      try {
        while (System.in.read() != -1) {
          // nothing is ever sent; reading only waits for the end
        }
      } catch (java.io.IOException closed) {
        // a broken pipe means the same
      }
      System.exit(0);
    }, "exit-with-parent");
    watcher.setDaemon(true);
    watcher.start();
  }
}
