package dev.sharray.bench.peers;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/** The joblib/numpy peer server ({@code bench/peers/joblib_peer.py}) and its line protocol. */
final class PythonPeer implements AutoCloseable {
    private final Process process;
    private final BufferedReader out;
    private final PrintStream in;

    PythonPeer(String python, Path script) throws IOException {
        ProcessBuilder pb = new ProcessBuilder(python, "-u", script.toString());
        pb.redirectError(ProcessBuilder.Redirect.INHERIT);
        process = pb.start();
        out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
        in = new PrintStream(process.getOutputStream(), true, StandardCharsets.UTF_8);
    }

    synchronized String call(String command) throws IOException {
        in.println(command);
        String reply = out.readLine();
        if (reply == null) {
            throw new IOException("the python peer exited");
        }
        if (reply.startsWith("error")) {
            throw new IOException("python peer: " + reply);
        }
        return reply;
    }

    /** A {@link Workload} served by the python peer. */
    Workload workload(String name, String rowId) {
        String key = name + "@" + rowId;
        return new Workload() {
            @Override
            public void setUp(Params params) throws Exception {
                call("setup " + key + " " + params);
            }

            @Override
            public double run() throws Exception {
                return Double.parseDouble(call("run " + key));
            }

            @Override
            public void close() throws Exception {
                call("close " + key);
            }
        };
    }

    @Override
    public void close() throws InterruptedException {
        in.println("quit");
        in.close();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }
}
