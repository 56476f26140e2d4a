package dev.sharray;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicLongArray;
import java.util.stream.Stream;

/**
 * The child JVM of {@link LifecycleChaosTest}. Its threads create, open, view, hand over and release shared arrays
 * of both backings, and open the arrays the other agents publish; whenever they hold an array they check its data,
 * that its file is still the one they opened (same inode) and that its {@code .ref} file is still there.
 * Anything else than an expected outcome is reported as a {@code fail} line; the controller fails the test on it.
 *
 * <p>Arguments: {@code WORK AGENT_ID SEED THREADS}. {@code WORK/pub/} holds one file per published array (its
 * descriptor in hex and the seed of its data), {@code WORK/dead/} one empty file per pid the controller killed.
 * Agents with an odd id keep their mappings after the last release, as a pool's workers do
 * ({@link SharedArrays#retainMappings}), so that path is shaken too.
 *
 * <p>stdin: {@code stop} (the threads finish their operation and end; answers one {@code held COUNT PATH} line
 * per array still held, a {@code stats ...} line and {@code stopped}); {@code release-all} (answers
 * {@code released-all}); {@code grab} (opens and keeps every published array still there, the threads still at
 * work; answers {@code grabbed COUNT}); {@code exit} (stops the threads, then exits normally); end of input (exits
 * normally while the threads run, as a program may). stdout: {@code ready PID}, and {@code fail ...} lines,
 * continued on lines starting with {@code "   |"}.
 */
final class ChaosAgent {
    /** Element {@code i} of an array published with seed {@code s} holds {@code s + i * GOLD}. */
    private static final long GOLD = 0x9E3779B97F4A7C15L;
    /** An operation that runs longer than this is reported as a hang, with every thread's stack. */
    private static final long HANG_NANOS = 30_000_000_000L;

    /** One handle this agent holds, and what its memory and file must be. */
    private record Held(SharedArray a, long seed, long base, Path data, Object inode, long deadline) {
    }

    private static Path pubDir;
    private static Path deadDir;
    private static int id;
    private static volatile boolean stop;
    /** Set once the agent exits normally: the exit hook then drops our references under running threads. */
    private static volatile boolean exiting;
    private static final ConcurrentLinkedQueue<Held> HANDED_OVER = new ConcurrentLinkedQueue<>();
    private static final List<Held> KEPT = Collections.synchronizedList(new ArrayList<>());
    private static final Map<String, AtomicLong> STATS = new TreeMap<>();
    private static AtomicLongArray opStart;
    private static String[] opName;
    private static volatile List<Path> pubCache = List.of();
    private static volatile long pubCacheAt;

    private ChaosAgent() {
    }

    public static void main(String[] args) throws Exception {
        final Path work = Path.of(args[0]);
        pubDir = work.resolve("pub");
        deadDir = work.resolve("dead");
        id = Integer.parseInt(args[1]);
        final long seed = Long.parseLong(args[2]);
        final int threads = Integer.parseInt(args[3]);
        for (String s : List.of("created", "opened", "gone", "burst", "views", "handovers", "reaps", "released")) {
            STATS.put(s, new AtomicLong());
        }
        if (id % 2 == 1) {
            SharedArrays.retainMappings(1L << 30);
        }
        opStart = new AtomicLongArray(threads);
        opName = new String[threads];
        final Thread[] workers = new Thread[threads];
        for (int t = 0; t < threads; t++) {
            final int tid = t;
            final Random random = new Random(seed * 31 + t);
            workers[t] = new Thread(() -> work(tid, random), "chaos-" + t);
            workers[t].setUncaughtExceptionHandler((th, e) -> fail("uncaught in " + th.getName(), null, e));
            workers[t].start();
        }
        final Thread dog = new Thread(ChaosAgent::watchdog, "chaos-watchdog");
        dog.setDaemon(true);
        dog.start();
        say("ready " + ProcessHandle.current().pid());
        final BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            if (line.equals("stop")) {
                stop = true;
                for (Thread t : workers) {
                    t.join();
                }
                reportHeld();
                say("stopped");
            } else if (line.equals("grab")) {
                say("grabbed " + grabAll(new Random(seed)));
            } else if (line.equals("exit")) {
                stop = true;
                for (Thread t : workers) {
                    t.join();
                }
                System.exit(0); // a normal exit with no thread at work: the exit hook drops every reference
            } else if (line.equals("release-all")) {
                final Random r = new Random(seed);
                final List<Held> all = new ArrayList<>(KEPT);
                KEPT.clear();
                for (Held h; (h = HANDED_OVER.poll()) != null; ) {
                    all.add(h);
                }
                for (Held h : all) {
                    try {
                        verifyAndRelease(h, "release-all", r);
                    } catch (RuntimeException | Error e) {
                        fail("release-all", null, e);
                    }
                }
                say("released-all");
            }
        }
        exiting = true;
        System.exit(0); // stdin closed: a normal exit while the threads are still at work
    }

    /** Opens every published array that is still there, and keeps it: the controller kills us holding them. */
    private static int grabAll(Random r) {
        int grabbed = 0;
        for (Path pub : list(pubDir)) {
            if (!pub.getFileName().toString().endsWith(".d")) {
                continue; // being written
            }
            try {
                final String[] w = Files.readString(pub).trim().split(" ");
                final Published p = new Published(Descriptor.fromBytes(HexFormat.of().parseHex(w[0])),
                    Long.parseLong(w[1]), pub);
                final SharedArray a = openOrGone(p);
                if (a != null) {
                    final Held h = new Held(a, p.seed, 0, a.path(), inodeOfHeld(a, "grab"), 0);
                    verify(h, "grab", r);
                    KEPT.add(h);
                    grabbed++;
                }
            } catch (NoSuchFileException e) {
                // its array was found gone by another agent meanwhile
            } catch (IOException | RuntimeException | Error e) {
                fail("grab", null, e);
            }
        }
        return grabbed;
    }

    private static void reportHeld() {
        final Map<Path, Long> counts = new TreeMap<>();
        synchronized (KEPT) {
            KEPT.forEach(h -> counts.merge(h.data, 1L, Long::sum));
        }
        HANDED_OVER.forEach(h -> counts.merge(h.data, 1L, Long::sum));
        counts.forEach((path, n) -> say("held " + n + " " + path));
        say("stats " + STATS);
    }

    private static void count(String stat) {
        STATS.get(stat).incrementAndGet();
    }

    private static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    /**
     * Reports a failure. While the agent exits normally, its exit hook drops the references of threads that still
     * run and may delete their arrays, and late operations may fail: then only wrong data counts (the memory stays
     * mapped, and nobody writes an array after publishing it), see {@link #report}.
     */
    private static void fail(String op, String what, Throwable t) {
        if (!exiting) {
            report(op, what, t);
        }
    }

    private static void report(String op, String what, Throwable t) {
        final StringWriter trace = new StringWriter();
        if (t != null) {
            t.printStackTrace(new PrintWriter(trace));
        }
        final String text = "fail agent " + id + " pid " + ProcessHandle.current().pid() + (exiting ? " (exiting)" : "")
            + " op " + op + ": " + (what == null ? "unexpected exception" : what) + (t == null ? "" : "\n" + trace);
        say(text.strip().replace("\n", "\n   | "));
    }

    private static void watchdog() {
        while (true) {
            try {
                Thread.sleep(1000);
            } catch (InterruptedException e) {
                return;
            }
            final long now = System.nanoTime();
            for (int t = 0; t < opStart.length(); t++) {
                final long began = opStart.get(t);
                if (began != 0 && now - began > HANG_NANOS && opStart.compareAndSet(t, began, 0)) {
                    final StringBuilder stacks = new StringBuilder();
                    Thread.getAllStackTraces().forEach((th, st) -> {
                        stacks.append(th.getName()).append('\n');
                        for (StackTraceElement e : st) {
                            stacks.append("  at ").append(e).append('\n');
                        }
                    });
                    fail(opName[t], "thread " + t + " hangs for " + (now - began) / 1_000_000 + " ms\n" + stacks, null);
                }
            }
        }
    }

    /** One thread: random operations until {@code stop}; what it still holds then goes to {@link #KEPT}. */
    private static void work(int tid, Random r) {
        final List<Held> mine = new ArrayList<>();
        while (!stop) {
            final int op = r.nextInt(100);
            opName[tid] = op < 8 ? "create" : op < 40 ? "open" : op < 52 ? "burst" : op < 60 ? "reopen"
                : op < 68 ? "view" : op < 75 ? "handover" : op < 77 ? "reap" : op < 78 ? "keep" : "release";
            opStart.set(tid, System.nanoTime());
            try {
                switch (opName[tid]) {
                    case "create" -> create(r, mine);
                    case "open" -> open(r, mine);
                    case "burst" -> burst(r);
                    case "reopen" -> reopen(r, mine);
                    case "view" -> view(r, mine);
                    case "handover" -> takeHandedOver(r);
                    case "reap" -> reap(r);
                    case "keep" -> {
                        if (!mine.isEmpty() && KEPT.size() < 20) {
                            KEPT.add(mine.remove(r.nextInt(mine.size())));
                        }
                    }
                    default -> releaseExpired(r, mine);
                }
            } catch (Throwable t) {
                fail(opName[tid], null, t);
            }
            opStart.set(tid, 0);
        }
        KEPT.addAll(mine);
    }

    private static void create(Random r, List<Held> mine) throws IOException {
        final int n = 1 + r.nextInt(r.nextBoolean() ? 64 : 20_000);
        final Backing backing = r.nextBoolean() ? Backing.AGRONA : Backing.MAPPED_FILE;
        final SharedArray a = SharedArray.builder(DType.INT64, n).backing(backing).create();
        count("created");
        final long seed = r.nextLong();
        final long[] values = new long[n];
        for (int i = 0; i < n; i++) {
            values[i] = seed + i * GOLD;
        }
        a.copyFrom(values);
        if (r.nextBoolean()) {
            // the first page of holder slots taken by idle live processes: every other process's claim adds or uses
            // a second page, so growing it and scanning beyond the first page meet the kills too
            RefSlots.fillWithIdleLiveHolders(Segments.refPathFor(a.path()), 1, RefCountFile.INITIAL_SLOTS);
        }
        final Held h = new Held(a, seed, 0, a.path(), inode(a.path()), System.nanoTime() + r.nextLong(3_000_000_000L));
        verify(h, "create", r);
        // named by the time first: in name order, the newest come last
        final String name = String.format("%013d-%d-%d-%d", System.currentTimeMillis(), id,
            ProcessHandle.current().pid(), r.nextInt(1_000_000));
        final Path tmp = pubDir.resolve(name + ".tmp");
        Files.writeString(tmp, HexFormat.of().formatHex(a.descriptor().toBytes()) + " " + seed + "\n");
        Files.move(tmp, pubDir.resolve(name + ".d"), StandardCopyOption.ATOMIC_MOVE);
        if (r.nextInt(4) == 0) {
            verifyAndRelease(h, "create", r); // only others will hold it, if they are quick
        } else {
            mine.add(h);
        }
    }

    /** Opens a published array, half the time one of the newest few, so that many threads and processes meet. */
    private static void open(Random r, List<Held> mine) throws IOException {
        final Published p = pick(r, 4);
        if (p == null) {
            return;
        }
        final SharedArray a = openOrGone(p);
        if (a == null) {
            return;
        }
        count("opened");
        final Held h = new Held(a, p.seed, 0, a.path(), inodeOfHeld(a, "open"), System.nanoTime()
            + r.nextLong(r.nextBoolean() ? 50_000_000L : 2_000_000_000L));
        verify(h, "open", r);
        if (r.nextInt(3) == 0) {
            verifyAndRelease(h, "open", r);
        } else {
            mine.add(h);
        }
    }

    /** Many short-lived opens of one of the newest arrays: slots are claimed and given back all the time. */
    private static void burst(Random r) throws IOException {
        final Published p = pick(r, 3);
        if (p == null) {
            return;
        }
        for (int i = 5 + r.nextInt(30); i > 0 && !stop; i--) {
            final SharedArray a = openOrGone(p);
            if (a == null) {
                return;
            }
            count("burst");
            final Held h = new Held(a, p.seed, 0, a.path(), inodeOfHeld(a, "burst"), 0);
            verify(h, "burst", r);
            a.release();
            count("released");
        }
    }

    /** Opens a held array again and again, sometimes after releasing our own handle on it first. */
    private static void reopen(Random r, List<Held> mine) {
        if (mine.isEmpty()) {
            return;
        }
        final Held base = mine.get(r.nextInt(mine.size()));
        final Descriptor d = base.a.descriptor();
        final boolean releaseFirst = r.nextInt(3) == 0; // a retired mapping is then reused, or the array is gone
        if (releaseFirst) {
            mine.remove(base);
            verifyAndRelease(base, "reopen", r);
        }
        for (int i = 2 + r.nextInt(10); i > 0; i--) {
            final SharedArray a;
            try {
                a = SharedArray.open(d);
            } catch (IllegalStateException e) {
                if (releaseFirst && isGone(e)) {
                    count("gone");
                    return;
                }
                throw e; // we hold it: it must open
            }
            count("opened");
            final Held h = new Held(a, base.seed, base.base, base.data, base.inode,
                System.nanoTime() + r.nextLong(500_000_000L));
            verify(h, "reopen", r);
            if (i == 1 && r.nextBoolean()) {
                mine.add(h);
            } else {
                verifyAndRelease(h, "reopen", r);
            }
        }
    }

    /** A slice or a retain() of a held handle; half of them are handed over to whichever thread takes them. */
    private static void view(Random r, List<Held> mine) {
        if (mine.isEmpty()) {
            return;
        }
        final Held h = mine.get(r.nextInt(mine.size()));
        final long n = h.a.size();
        final long deadline = System.nanoTime() + r.nextLong(1_000_000_000L);
        final Held v;
        if (n < 2 || r.nextBoolean()) {
            v = new Held(h.a.retain(), h.seed, h.base, h.data, h.inode, deadline);
        } else {
            final long from = r.nextLong(n - 1);
            final long to = from + 1 + r.nextLong(n - from - 1);
            v = new Held(h.a.slice(0, from, to, 1), h.seed, h.base + from, h.data, h.inode, deadline);
        }
        count("views");
        verify(v, "view", r);
        if (r.nextBoolean()) {
            HANDED_OVER.add(v);
        } else {
            mine.add(v);
        }
    }

    private static void takeHandedOver(Random r) {
        final Held h = HANDED_OVER.poll();
        if (h != null) {
            count("handovers");
            verifyAndRelease(h, "handover", r);
        }
    }

    /** A full pass, or a supervisor's pass for one pid the controller killed. */
    private static void reap(Random r) {
        if (r.nextInt(4) == 0) {
            SharedArrays.reap();
        } else {
            final List<Path> dead = list(deadDir);
            if (!dead.isEmpty()) {
                SharedArrays.reapProcess(Long.parseLong(dead.get(r.nextInt(dead.size())).getFileName().toString()));
            }
        }
        count("reaps");
    }

    private static void releaseExpired(Random r, List<Held> mine) {
        final long now = System.nanoTime();
        final boolean all = r.nextInt(50) == 0;
        for (int i = mine.size() - 1; i >= 0; i--) {
            if (all || mine.size() > 12 || mine.get(i).deadline < now) {
                verifyAndRelease(mine.remove(i), "release", r);
            }
        }
    }

    /** A published array: its descriptor, the seed of its data and its publication file. */
    private record Published(Descriptor descriptor, long seed, Path file) {
    }

    /** @return a published array, one of the {@code newest} newest half the time; null when none is or it vanished */
    private static Published pick(Random r, int newest) throws IOException {
        final List<Path> pubs = published();
        if (pubs.isEmpty()) {
            return null;
        }
        final Path p = r.nextBoolean() ? pubs.get(pubs.size() - 1 - r.nextInt(Math.min(newest, pubs.size())))
            : pubs.get(r.nextInt(pubs.size()));
        final String[] w;
        try {
            w = Files.readString(p).trim().split(" ");
        } catch (NoSuchFileException e) {
            return null;
        }
        return new Published(Descriptor.fromBytes(HexFormat.of().parseHex(w[0])), Long.parseLong(w[1]), p);
    }

    /** @return the array, or null when its last holder released it (its publication is then dropped) */
    private static SharedArray openOrGone(Published p) throws IOException {
        try {
            return SharedArray.open(p.descriptor);
        } catch (IllegalStateException e) {
            if (!isGone(e)) {
                throw e;
            }
            count("gone");
            Files.deleteIfExists(p.file);
            return null;
        }
    }

    /** The two messages of an array released everywhere (see Segments.released and RefCountFile.open). */
    private static boolean isGone(IllegalStateException e) {
        final String m = String.valueOf(e.getMessage());
        return m.contains("has been released by all its holders") || m.contains("the array was released");
    }

    /** The publications, newest last; read again at most every 100 ms. */
    private static List<Path> published() {
        final long now = System.nanoTime();
        if (now - pubCacheAt > 100_000_000L) {
            final List<Path> l = new ArrayList<>(list(pubDir));
            l.removeIf(p -> !p.getFileName().toString().endsWith(".d"));
            l.sort(null);
            pubCache = l;
            pubCacheAt = now;
        }
        return pubCache;
    }

    private static List<Path> list(Path dir) {
        try (Stream<Path> s = Files.list(dir)) {
            return s.toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private static Object inode(Path p) throws IOException {
        return Files.readAttributes(p, BasicFileAttributes.class).fileKey();
    }

    /** The inode of an array just opened: its file cannot be gone while we hold it. */
    private static Object inodeOfHeld(SharedArray a, String op) throws IOException {
        try {
            return inode(a.path());
        } catch (NoSuchFileException e) {
            fail(op, "file " + a.path() + " gone right after a successful open (we hold it)", null);
            return null;
        }
    }

    /** Checks samples (sometimes all) of the data, and that the array's files are those we opened. */
    private static void verify(Held h, String op, Random r) {
        final long n = h.a.size();
        final boolean full = n <= 20_000 && r.nextInt(10) == 0;
        final int samples = full ? (int) n : (int) Math.min(n, 16);
        for (int s = 0; s < samples; s++) {
            final long i = full ? s : s == 0 ? 0 : s == 1 ? n - 1 : r.nextLong(n);
            final long got = h.a.getLong(i);
            final long want = h.seed + (h.base + i) * GOLD;
            if (got != want) {
                report(op, "data changed under a holder: " + h.data + " [" + (h.base + i) + "] = " + got + ", want "
                    + want, null);
                return;
            }
        }
        try {
            if (h.inode != null && !inode(h.data).equals(h.inode)) {
                fail(op, "file replaced under a holder: " + h.data, null);
            }
            if (!Files.exists(Segments.refPathFor(h.data))) {
                fail(op, ".ref file unlinked under a holder: " + h.data, null);
            }
        } catch (IOException e) {
            fail(op, "file unlinked under a holder: " + h.data + ": " + e, null);
        }
    }

    private static void verifyAndRelease(Held h, String op, Random r) {
        verify(h, op, r);
        h.a.release();
        count("released");
    }
}
