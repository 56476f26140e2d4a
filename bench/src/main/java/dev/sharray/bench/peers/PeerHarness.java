package dev.sharray.bench.peers;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * The side-by-side harness behind {@code bench/run-peers.sh}: for each {@link Rows row}, sets up the peer and
 * the sharray side, runs both for the warm-up, then alternates them pair by pair for the measured runs, and
 * writes a markdown table (into the generated section of {@code docs/benchmarks.md}), a CSV and a PNG chart.
 *
 * <p>Each measured run directly follows an unmeasured run of the same side, so each side is timed in its own
 * aftermath, as in a loop of its own calls, never in the other side's. A run can leave work behind that slows
 * whatever runs next. On this project's VM, in the 1 GiB argument row, sharray's runs right after a joblib run
 * took 38.9-86.5 ms (median 48.2) and those right after one of its own 34.9-54.9 ms (median 36.7), 12 of each;
 * a 1 GiB copy right after another process had freed 1 GiB took a median 81 ms against 32-38 ms from 150 ms
 * later. Alternating the sides pair by pair still spreads slow drift of the machine over both.
 *
 * <p>Options: {@code --runs N} (5), {@code --warmup N} (2), {@code --only REGEX} (row ids), {@code --root DIR}
 * (repository root, default the working directory), {@code --python PATH} ({@code /usr/bin/python3}),
 * {@code --no-docs} (print only), {@code --repeat N} (1: runs the selected rows N times over and prints each
 * row's speedup in every repetition, {@link Repetitions}; writes no docs).
 */
public final class PeerHarness {
    private PeerHarness() {
    }

    /** Measured values of one row. */
    static final class Result {
        final Row row;
        final List<Double> peer = new ArrayList<>();
        final List<Double> sharray = new ArrayList<>();
        String peerStatus = "";
        String sharrayStatus = "";

        Result(Row row) {
            this.row = row;
        }

        static double[] array(List<Double> l) {
            return l.stream().mapToDouble(Double::doubleValue).toArray();
        }

        double peerMedian() {
            return Stats.median(array(peer));
        }

        double sharrayMedian() {
            return Stats.median(array(sharray));
        }

        /** @return peer/sharray per measured pair */
        double[] ratios() {
            int n = Math.min(peer.size(), sharray.size());
            double[] r = new double[n];
            for (int i = 0; i < n; i++) {
                r[i] = peer.get(i) / sharray.get(i);
            }
            return r;
        }
    }

    /**
     * @param args see the class comment
     * @throws Exception when the harness itself fails (a failing row is reported, not thrown)
     */
    public static void main(String[] args) throws Exception {
        int runs = 5;
        int warmup = 2;
        Pattern only = Pattern.compile(".*");
        Path root = Path.of("").toAbsolutePath();
        String python = "/usr/bin/python3";
        boolean docs = true;
        int repeat = 1;
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--runs" -> runs = Integer.parseInt(args[++i]);
                case "--warmup" -> warmup = Integer.parseInt(args[++i]);
                case "--only" -> only = Pattern.compile(args[++i]);
                case "--root" -> root = Path.of(args[++i]).toAbsolutePath();
                case "--python" -> python = args[++i];
                case "--no-docs" -> docs = false;
                case "--repeat" -> repeat = Integer.parseInt(args[++i]);
                default -> throw new IllegalArgumentException("unknown option " + args[i]
                    + " (use --runs N --warmup N --only REGEX --root DIR --python PATH --no-docs --repeat N)");
            }
        }
        System.setProperty("java.awt.headless", "true");
        String date = ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        if (repeat < 1) {
            throw new IllegalArgumentException("--repeat must be at least 1, was " + repeat);
        }
        List<Result> results = new ArrayList<>();
        final Repetitions repetitions = new Repetitions();
        PythonPeer py = null;
        String pythonInfo = null;
        long start = System.nanoTime();
        try {
            for (int rep = 1; rep <= repeat; rep++) {
                if (repeat > 1) {
                    log("repetition %d of %d", rep, repeat);
                }
                results = new ArrayList<>();
                for (Row row : Rows.all()) {
                    if (!only.matcher(row.id()).find()) {
                        continue;
                    }
                    if (py == null && row.peerImpl().startsWith("py:")) {
                        py = new PythonPeer(python, root.resolve("bench/peers/joblib_peer.py"));
                        pythonInfo = py.call("info");
                    }
                    results.add(measure(row, py, warmup, runs));
                }
                repetitions.add(results);
            }
        } finally {
            if (py != null) {
                py.close();
            }
        }
        double minutes = (System.nanoTime() - start) / 6e10;
        Report report = new Report(results, MachineInfo.describe(pythonInfo), date, runs, warmup, minutes);
        System.out.println(report.markdownTable());
        report.writeRawCsv(root.resolve("bench/target/peers-raw.csv"));
        if (repeat > 1) {
            System.out.println(repetitions.markdownTable());
            repetitions.writeCsv(root.resolve("bench/target/peers-repeats.csv"));
            System.err.printf(Locale.ROOT, "run-peers: %d repetitions in %.1f min; the table above and "
                + "bench/target/peers-raw.csv are the last one's, bench/target/peers-repeats.csv has them all; no docs written%n",
                repeat, minutes);
            return;
        }
        if (docs) {
            Path docsDir = root.resolve("docs");
            Files.createDirectories(docsDir);
            report.writeCsv(docsDir.resolve("benchmarks-peers.csv"));
            report.writeChart(docsDir.resolve("benchmarks-peers.png"));
            report.writeIntoMarkdown(docsDir.resolve("benchmarks.md"));
            System.err.println("run-peers: wrote docs/benchmarks.md (generated section), docs/benchmarks-peers.csv, "
                + "docs/benchmarks-peers.png, bench/target/peers-raw.csv");
        }
    }

    private static Result measure(Row row, PythonPeer py, int warmup, int runs) {
        Result r = new Result(row);
        log("%s: %s", row.id(), row.title());
        Workload peer = null;
        Workload shar = null;
        try {
            peer = open(row.peerImpl(), row, py, r, true);
            shar = open(row.sharrayImpl(), row, py, r, false);
            for (int i = 0; i < warmup; i++) {
                peer = runOne(peer, null, r, true);
                shar = runOne(shar, null, r, false);
            }
            for (int i = 0; i < row.measuredRuns(runs); i++) {
                // a measured run directly follows an unmeasured run of its own side (see the class comment)
                peer = runOne(runOne(peer, null, r, true), r.peer, r, true);
                shar = runOne(runOne(shar, null, r, false), r.sharray, r, false);
            }
        } finally {
            closeQuietly(peer);
            closeQuietly(shar);
        }
        log("  peer %s %s | sharray %s %s", Report.time(r.peerMedian()), r.peerStatus,
            Report.time(r.sharrayMedian()), r.sharrayStatus);
        return r;
    }

    private static Workload open(String impl, Row row, PythonPeer py, Result r, boolean isPeer) {
        Workload w;
        if (impl.startsWith("py:")) {
            w = py.workload(impl.substring(3), row.id());
        } else {
            String cls = impl.substring("java:".length());
            try {
                w = (Workload) Class.forName(cls).getDeclaredConstructor().newInstance();
            } catch (ClassNotFoundException e) {
                setStatus(r, isPeer, "n/a");
                return null;
            } catch (ReflectiveOperationException | ClassCastException e) {
                setStatus(r, isPeer, "failed: " + e);
                return null;
            }
        }
        try {
            w.setUp(row.params().forSide(isPeer));
            return w;
        } catch (Exception e) {
            setStatus(r, isPeer, "failed: " + e.getMessage());
            log("  %s side failed at set-up: %s", isPeer ? "peer" : "sharray", e);
            closeQuietly(w);
            return null;
        }
    }

    /** Runs {@code w} once (none when null), adding its time to {@code into} unless null; null once it failed. */
    private static Workload runOne(Workload w, List<Double> into, Result r, boolean isPeer) {
        if (w == null) {
            return null;
        }
        try {
            double seconds = w.run();
            if (into != null) {
                into.add(seconds);
            }
            return w;
        } catch (Exception e) {
            setStatus(r, isPeer, "failed: " + e.getMessage());
            log("  %s side failed: %s", isPeer ? "peer" : "sharray", e);
            closeQuietly(w);
            return null;
        }
    }

    private static void setStatus(Result r, boolean isPeer, String status) {
        if (isPeer) {
            r.peerStatus = status;
        } else {
            r.sharrayStatus = status;
        }
    }

    private static void closeQuietly(Workload w) {
        if (w != null) {
            try {
                w.close();
            } catch (Exception e) {
                log("  close failed: %s", e);
            }
        }
    }

    static void log(String format, Object... args) {
        System.err.println("run-peers: " + String.format(Locale.ROOT, format, args));
    }
}
