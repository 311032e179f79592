package neardup.local;

import java.io.IOException;
import java.io.PrintStream;
import java.net.BindException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.opensearch.action.admin.cluster.health.ClusterHealthResponse;
import org.opensearch.common.settings.Settings;
import org.opensearch.common.unit.TimeValue;
import org.opensearch.core.common.transport.TransportAddress;
import org.opensearch.env.Environment;
import org.opensearch.http.HttpServerTransport;
import org.opensearch.node.InternalSettingsPreparer;
import org.opensearch.node.Node;
import org.opensearch.plugins.Plugin;

/**
 * Starts a single real OpenSearch node from the jars on the classpath (no distribution, no Docker).
 *
 * <p>Usage: {@code java -cp 'target/classes:target/lib/*' neardup.local.LocalOpenSearch
 * [--port N] [--data DIR] [--cluster-name NAME] [--exit-on-stdin-eof]}. {@code --port 0} lets the OS pick a free port.
 * {@code --data DIR} is the node's home: data in DIR/data, logs in DIR/logs, and empty DIR/modules
 * and DIR/plugins (the plugins come from the classpath instead).
 *
 * <p>stdout carries exactly one line: {@code OPENSEARCH_READY http://127.0.0.1:PORT} once HTTP
 * answers and the cluster is at least yellow, or {@code OPENSEARCH_FAILED <reason>} before a
 * non-zero exit. Logs go to stderr. SIGTERM/SIGINT close the node cleanly; with
 * {@code --exit-on-stdin-eof} so does the end of stdin (the parent process died).
 */
public final class LocalOpenSearch {

    static final String HOST = "127.0.0.1";

    /** Plugins loaded from the classpath; the first five are required, the rest are used when present. */
    static final String[] REQUIRED_PLUGINS = {
        "org.opensearch.transport.Netty4Plugin",
        "org.opensearch.analysis.common.CommonAnalysisPlugin",
        "org.opensearch.painless.PainlessPlugin",
        "org.opensearch.index.mapper.MapperExtrasPlugin",
        "org.opensearch.index.reindex.ReindexPlugin",
    };

    /** A Node that takes its plugins from the classpath, as the test framework's MockNode does. */
    static final class EmbeddedNode extends Node {
        EmbeddedNode(Environment env, Collection<Class<? extends Plugin>> plugins) {
            super(env, plugins, true);
        }
    }

    private LocalOpenSearch() {}

    public static void main(String[] args) {
        // stdout is the protocol channel: keep a private handle and send stray prints to stderr.
        PrintStream out = System.out;
        System.setOut(System.err);
        int port = 9200;
        Path data = Path.of(".neardup", "opensearch-data");
        String clusterName = "neardup-local";
        boolean exitOnStdinEof = false;
        try {
            for (int i = 0; i < args.length; i++) {
                String a = args[i];
                switch (a) {
                    case "--port" -> port = Integer.parseInt(value(args, ++i, a));
                    case "--data" -> data = Path.of(value(args, ++i, a));
                    case "--cluster-name" -> clusterName = value(args, ++i, a);
                    case "--exit-on-stdin-eof" -> exitOnStdinEof = true;
                    default -> throw new IllegalArgumentException("unknown argument " + a);
                }
            }
            if (port < 0 || port > 65535) throw new IllegalArgumentException("--port must be 0..65535, got " + port);
        } catch (RuntimeException e) {
            fail(out, "bad arguments: " + e.getMessage(), 2);
            return;
        }

        if (port != 0 && !portFree(port)) {
            fail(out, "port " + port + " on " + HOST + " is already in use", 3);
            return;
        }

        Node node;
        try {
            Path home = data.toAbsolutePath().normalize();
            for (String dir : List.of("data", "logs", "config", "modules", "plugins")) {
                Files.createDirectories(home.resolve(dir));
            }
            Settings settings = Settings.builder()
                .put("path.home", home.toString())
                .put("path.data", home.resolve("data").toString())
                .put("path.logs", home.resolve("logs").toString())
                .put("cluster.name", clusterName)
                .put("node.name", "neardup-local-node")
                .put("discovery.type", "single-node")
                .put("network.host", HOST)
                .put("http.port", Integer.toString(port))
                .put("transport.port", "0")
                .put("cluster.routing.allocation.disk.threshold_enabled", false)
                .put("action.auto_create_index", true)
                .build();
            Environment env = InternalSettingsPreparer.prepareEnvironment(
                settings, Map.of(), home.resolve("config"), () -> "neardup-local-node");
            node = new EmbeddedNode(env, pluginClasses());
        } catch (Exception e) {
            e.printStackTrace();
            fail(out, "could not create the node: " + describe(e), 1);
            return;
        }

        CountDownLatch closed = new CountDownLatch(1);
        final Node n = node;
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            try {
                n.close();
                n.awaitClose(20, TimeUnit.SECONDS);
            } catch (Exception e) {
                e.printStackTrace();
            } finally {
                closed.countDown();
            }
        }, "neardup-local-shutdown"));

        try {
            node.start();
            ClusterHealthResponse health = node.client().admin().cluster().prepareHealth()
                .setWaitForYellowStatus().setTimeout(TimeValue.timeValueSeconds(120)).get();
            if (health.isTimedOut()) {
                System.err.println("warning: cluster did not reach yellow within 120s: " + health.getStatus());
            }
            TransportAddress addr = node.injector().getInstance(HttpServerTransport.class)
                .boundAddress().publishAddress();
            out.println("OPENSEARCH_READY http://" + HOST + ":" + addr.getPort());
            out.flush();
        } catch (Throwable e) {
            e.printStackTrace();
            if (hasCause(e, BindException.class)) {
                fail(out, "port " + port + " on " + HOST + " is already in use", 3);
            } else {
                fail(out, "could not start the node: " + describe(e), 1);
            }
            return;
        }

        if (exitOnStdinEof) {
            // The parent (neardup's TypeScript helper) holds our stdin open; if it dies, stop too.
            Thread watch = new Thread(() -> {
                try {
                    while (System.in.read() != -1) {
                        // ignore input
                    }
                } catch (IOException e) {
                    // treat as EOF
                }
                System.err.println("stdin closed: shutting down");
                System.exit(0);
            }, "neardup-stdin-watch");
            watch.setDaemon(true);
            watch.start();
        }

        try {
            closed.await(); // the node's threads are daemons: keep the JVM alive until shutdown
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @SuppressWarnings("unchecked")
    static Collection<Class<? extends Plugin>> pluginClasses() throws ClassNotFoundException {
        List<Class<? extends Plugin>> plugins = new ArrayList<>();
        for (String name : REQUIRED_PLUGINS) {
            plugins.add((Class<? extends Plugin>) Class.forName(name));
        }
        return plugins;
    }

    static String value(String[] args, int i, String flag) {
        if (i >= args.length) throw new IllegalArgumentException(flag + " needs a value");
        return args[i];
    }

    /**
     * True when nothing listens on the port. The check binds the way the node's HTTP transport
     * will (netty, {@code http.tcp.reuse_address}: SO_REUSEADDR on except on Windows), so a port
     * left in TIME_WAIT by a node that was just killed counts as free, as it is for the node;
     * on Linux a listening socket still makes the bind fail.
     */
    static boolean portFree(int port) {
        try (ServerSocket s = new ServerSocket()) {
            s.setReuseAddress(!System.getProperty("os.name", "").startsWith("Windows"));
            s.bind(new InetSocketAddress(InetAddress.getByName(HOST), port));
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    static boolean hasCause(Throwable e, Class<? extends Throwable> type) {
        for (Throwable t = e; t != null; t = t.getCause()) {
            if (type.isInstance(t)) return true;
            if (t.getCause() == t) break;
        }
        return false;
    }

    static String describe(Throwable e) {
        Throwable root = e;
        while (root.getCause() != null && root.getCause() != root) root = root.getCause();
        String msg = e.getClass().getSimpleName() + ": " + e.getMessage();
        if (root != e) msg += " (caused by " + root.getClass().getSimpleName() + ": " + root.getMessage() + ")";
        return msg.replace('\n', ' ');
    }

    /** Print the failure line, then halt: a half-started node may hold non-daemon threads. */
    static void fail(PrintStream out, String reason, int code) {
        out.println("OPENSEARCH_FAILED " + reason);
        out.flush();
        System.err.flush();
        Runtime.getRuntime().halt(code);
    }
}
