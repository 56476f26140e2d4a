package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The reference-count and reaper protocol under chaos, across real processes. {@value #AGENTS} {@link ChaosAgent}
 * JVMs of {@value #THREADS} threads each create, open, view, hand over and release arrays of both backings, open
 * each other's arrays and run reaper passes, all on a private root; meanwhile this controller ends a random agent
 * every 0.2 to 2 s and starts a new one in its place: three times in five with {@code kill -9}, else by a normal exit,
 * half of those while its threads are at work (its stdin closes) and half once they stopped. It proves that:
 * <ul>
 *   <li>no agent ever sees wrong data, an array file replaced or a {@code .ref} file unlinked while it holds the
 *       array, or an unexpected exception (an open may only find an array released everywhere, and only when it
 *       did not hold it already): agents report these at once, and the test fails naming agent, operation and
 *       exception; no agent crashes, hangs or exits with an error;</li>
 *   <li>an agent that exited normally once its threads stopped holds no reference anywhere
 *       ({@link SharedArrays#list()}) right after it ended;</li>
 *   <li>at a quiescent checkpoint (the live agents' threads stopped) the holders {@code list()} shows for the live
 *       agents are exactly what they say they hold, pid by pid and array by array;</li>
 *   <li>each array a live agent held there is deleted by the last live release, whatever ended agents counted on
 *       it (one agent, killed right after it opened every array there was, counts on them all); once the ended
 *       agents are reaped with {@link SharedArrays#reapProcess}, as a supervisor does, no array is
 *       left at all (nothing in {@code list()}, no reference file, nothing in a live agent's folder);</li>
 *   <li>once the agents have exited and one {@link SharedArrays#reap()} pass ran, nothing at all is left in the root:
 *       no file, no owner folder, no reaper's claim.</li>
 * </ul>
 * The seed ({@value #DEFAULT_SEED} unless {@code -Dsharray.chaos.seed=N}) fixes every random choice: the schedule of
 * kills and exits, and each agent thread's operations. It cannot fix how the processes interleave, so a replay runs
 * the same choices, not the same race; a failure message names the seed. {@code -Dsharray.chaos.millis} sets how
 * long the chaos lasts (default {@value #DEFAULT_CHAOS_MILLIS} ms), e.g. to hunt longer by hand.
 */
class LifecycleChaosTest {
    static final long DEFAULT_SEED = 20_250_601L;
    static final long DEFAULT_CHAOS_MILLIS = 20_000;
    static final int AGENTS = 4;
    static final int THREADS = 3;
    /** How long an agent may take to answer a command; a working agent answers in well under a second. */
    private static final long ANSWER_SECONDS = 60;

    /** How an agent ended. */
    private enum Fate { RUNNING, KILLED, EXITED_WHILE_WORKING, EXITED_CLEANLY }

    private final List<Agent> started = new ArrayList<>();
    private final List<StringBuilder> failures = new ArrayList<>();
    private String tempFolderBefore;
    private Path root;
    private Path work;
    private String replay;

    /** A private root: the agents' arrays and folders are the only ones there, and no other test's reaper sees them. */
    @BeforeEach
    void privateRoot(@TempDir Path dir) throws IOException {
        root = Files.createDirectories(dir.resolve("root")).toRealPath();
        work = dir.resolve("work");
        Files.createDirectories(work.resolve("pub"));
        Files.createDirectories(work.resolve("dead"));
        tempFolderBefore = System.getProperty("sharray.tempFolder");
        System.setProperty("sharray.tempFolder", root.toString()); // the agents inherit it (ChildJvm)
    }

    @AfterEach
    void killAgentsAndRestore() {
        for (Agent a : started) {
            a.jvm.close(); // SIGKILL, whatever state the test left it in
        }
        if (tempFolderBefore == null) {
            System.clearProperty("sharray.tempFolder");
        } else {
            System.setProperty("sharray.tempFolder", tempFolderBefore);
        }
    }

    @Test
    @Timeout(value = 180, unit = TimeUnit.SECONDS) // a backstop: every wait below has its own, shorter timeout
    void killedAndExitingAgentsNeverDisturbAHolderAndLeaveExactCountsAndNoFiles() throws Exception {
        final long seed = Long.getLong("sharray.chaos.seed", DEFAULT_SEED);
        final long chaosMillis = Long.getLong("sharray.chaos.millis", DEFAULT_CHAOS_MILLIS);
        replay = "seed " + seed + " (replay with -Dsharray.chaos.seed=" + seed + ")";
        final long begin = System.nanoTime();

        final List<Agent> live = chaos(seed, chaosMillis);

        // One agent works on while the others stop, opens every array there is, and is killed: its references then
        // count in the arrays the others hold at the checkpoint, which their last releases must reclaim, and in
        // arrays only it held, which only reapProcess frees (an open by a working agent would reclaim them first).
        final Agent last = live.stream().filter(a -> a.ready).findFirst()
            .orElseThrow(() -> new AssertionError("no agent is ready after the chaos; " + replay));
        live.remove(last);
        final Map<String, Long> held = stopAll(live);
        last.jvm.send("grab");
        final String grabbed = last.answer();
        assertTrue(grabbed.startsWith("grabbed "), grabbed);
        kill9(last);
        assertEquals(held, holdersAmong(live), "at the checkpoint, SharedArrays.list() (right) disagrees with what the"
            + " live agents hold (left), as \"pid path\" -> count; " + replay);

        for (Agent a : live) {
            a.jvm.send("release-all");
        }
        for (Agent a : live) {
            a.await("released-all");
        }
        assertNoFailures("releasing what the agents held");
        final List<String> notDeleted = held.keySet().stream().map(LifecycleChaosTest::arrayOf)
            .filter(p -> Files.exists(p) || Files.exists(Segments.refPathFor(p))).map(Path::toString).distinct()
            .toList();
        assertEquals(List.of(), notDeleted, "arrays the live agents held, left after their last release: " + replay
            + diagnosis());
        for (Agent a : started) {
            if (a.fate != Fate.RUNNING) {
                SharedArrays.reapProcess(a.pid()); // what a supervisor does for a child that ended
            }
        }
        assertEquals(Map.of(), holdersAmong(null), "arrays left once the live agents released and the ended ones were"
            + " reaped; " + replay);
        assertEquals(List.of(), arrayFiles(live), "array files left once the live agents released and the ended ones"
            + " were reaped; " + replay + diagnosis());

        for (Agent a : live) {
            exit(a, false);
        }
        SharedArrays.reap();
        assertEquals(List.of(), leftovers(), "left in the root after every agent ended and one reap pass: " + replay
            + diagnosis());
        assertNoFailures("at the end");
        System.out.printf("LifecycleChaosTest: %s, %d agents started (ready in %.1f s on average), %d killed, %d exited"
            + " while working, the last one killed holding %s arrays, %.1f s%n", replay, started.size(),
            started.stream().filter(a -> a.ready).mapToLong(a -> a.readyNanos).average().orElse(0) / 1e9,
            count(Fate.KILLED), count(Fate.EXITED_WHILE_WORKING), grabbed.substring("grabbed ".length()),
            (System.nanoTime() - begin) / 1e9);
    }

    /**
     * Starts {@value #AGENTS} agents, then ends one at random every 0.2 to 2 s for {@code millis} and starts another
     * in its place.
     *
     * @return the agents running at the end
     */
    private List<Agent> chaos(long seed, long millis) throws Exception {
        final Random schedule = new Random(seed);
        final List<Agent> live = new ArrayList<>();
        for (int i = 0; i < AGENTS; i++) {
            live.add(start(seed));
        }
        final long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < end && pauseUnlessFailed(200 + schedule.nextInt(1800))) {
            final List<Agent> working = live.stream().filter(a -> a.ready).toList(); // not one still starting
            final int pick = schedule.nextInt(AGENTS);
            final int how = schedule.nextInt(10);
            if (working.isEmpty()) {
                continue;
            }
            final Agent victim = working.get(pick % working.size());
            if (how < 6) {
                kill9(victim);
            } else {
                exit(victim, how < 8);
            }
            live.remove(victim);
            live.add(start(seed));
        }
        assertNoFailures("during the chaos");
        assertTrue(count(Fate.KILLED) > 0, "the chaos killed no agent: " + replay);
        return live;
    }

    /** Starts agent number {@code started.size() + 1}, with a seed of its own derived from {@code seed}. */
    private Agent start(long seed) throws IOException {
        final int id = started.size() + 1;
        final ChildJvm jvm = ChildJvm.start(ChaosAgent.class,
            List.of("-Dsharray.leakDetection=disabled", "-XX:ErrorFile=" + work.resolve("hs_err_pid%p.log")),
            work.toString(), Integer.toString(id), Long.toString(seed * 1_000_003L + id), Integer.toString(THREADS));
        final Agent agent = new Agent(id, jvm);
        started.add(agent);
        return agent;
    }

    private void kill9(Agent victim) throws IOException, InterruptedException {
        victim.fate = Fate.KILLED;
        victim.jvm.process().destroyForcibly(); // SIGKILL on Linux, as kill -9
        assertTrue(victim.jvm.process().waitFor(30, TimeUnit.SECONDS), "agent " + victim.id + " survived SIGKILL");
        Files.writeString(work.resolve("dead").resolve(Long.toString(victim.pid())), ""); // agents reapProcess these
    }

    /**
     * Ends an agent normally: at once, its threads at work (its stdin closes), or once its threads stopped. It must
     * exit with status 0, and in the second case its exit hook must have dropped all its references: threads that
     * run on during the hook may take new ones, so only then is its pid certain to hold nothing.
     */
    private void exit(Agent agent, boolean whileWorking) throws Exception {
        agent.fate = whileWorking ? Fate.EXITED_WHILE_WORKING : Fate.EXITED_CLEANLY;
        if (!whileWorking) {
            agent.jvm.send("exit");
        }
        final int status;
        try {
            status = agent.jvm.finish(); // closes its stdin, waits at most 30 s
        } catch (IllegalStateException e) {
            throw new AssertionError("agent " + agent.id + " did not exit within 30 s; " + replay + failureSummary());
        }
        assertEquals(0, status, "exit status of agent " + agent.id + "; " + replay + failureSummary());
        if (!whileWorking) {
            final Map<String, Long> left = holdersAmong(List.of(agent));
            assertEquals(Map.of(), left, "references of agent " + agent.id + " left after its normal exit; " + replay);
        }
    }

    private long count(Fate fate) {
        return started.stream().filter(a -> a.fate == fate).count();
    }

    /**
     * Stops the live agents' threads and collects what they still hold.
     *
     * @return "pid realPath" -> references, as {@link #holdersAmong} gives them
     */
    private Map<String, Long> stopAll(List<Agent> live) throws Exception {
        for (Agent a : live) {
            a.jvm.send("stop");
        }
        final Map<String, Long> held = new TreeMap<>();
        final List<String> stats = new ArrayList<>();
        for (Agent a : live) {
            for (String line = a.answer(); !line.equals("stopped"); line = a.answer()) {
                if (line.startsWith("held ")) {
                    final String[] w = line.split(" ", 3);
                    held.put(a.pid() + " " + realPath(Path.of(w[2])), Long.parseLong(w[1]));
                } else if (line.startsWith("stats ")) {
                    stats.add("agent " + a.id + " " + line.substring(6));
                }
            }
        }
        assertNoFailures("until the agents stopped");
        System.out.println("LifecycleChaosTest: " + replay + "; checkpoint with " + held.size()
            + " (pid, array) holdings; the live agents' counts: " + stats);
        return held;
    }

    /**
     * @param agents whose references to keep; null for every holder
     * @return "pid realPath" -> references for every holder (of {@code agents}) of every live array in the root, as
     *     the library lists them
     */
    private Map<String, Long> holdersAmong(List<Agent> agents) {
        final List<Long> pids = agents == null ? null : agents.stream().map(Agent::pid).toList();
        final Map<String, Long> actual = new TreeMap<>();
        for (ArrayInfo info : SharedArrays.list()) {
            final Path data = realPath(info.path());
            if (data.startsWith(root)) {
                info.holders().forEach((pid, n) -> {
                    if (pids == null || pids.contains(pid)) {
                        actual.merge(pid + " " + data, n, Long::sum);
                    }
                });
            }
        }
        return actual;
    }

    /** @return the array of a "pid realPath" holding */
    private static Path arrayOf(String holding) {
        return Path.of(holding.substring(holding.indexOf(' ') + 1));
    }

    private static Path realPath(Path p) {
        try {
            return p.toRealPath();
        } catch (IOException e) {
            return p.toAbsolutePath(); // gone: it shows as it is, and differs
        }
    }

    /**
     * @return the files in the root that show an array still there: any file in a live agent's folder, and a reference
     *     file with a header anywhere. A create killed between its two files, or before the reference file's header,
     *     leaves a lone {@code .npy} or a header-less {@code .ref} in its folder, which no process can open and the
     *     reaper removes with the folder: {@link #leftovers()} checks that one pass did. A reaper's claimed folder is
     *     skipped too: a reaper killed while deleting it leaves it to the next pass.
     */
    private List<String> arrayFiles(List<Agent> live) throws IOException {
        final List<Long> livePids = live.stream().map(Agent::pid).toList();
        try (Stream<Path> s = Files.walk(root)) {
            return s.filter(Files::isRegularFile).filter(p -> {
                final long[] owner = TempFolders.parseOwner(p.getParent().getFileName().toString());
                final boolean claimed = p.getParent().getFileName().toString().startsWith(Reaper.DELETING_PREFIX);
                return !claimed && (owner != null && livePids.contains(owner[0])
                    || p.toString().endsWith(".ref") && RefSlots.readMagic(p) == RefCountFile.MAGIC);
            }).map(Path::toString).sorted().toList();
        }
    }

    /** @return everything below the root's {@code sharray-<user>} folder, and any crash log of an agent */
    private List<String> leftovers() throws IOException {
        final List<String> left = new ArrayList<>();
        try (Stream<Path> s = Files.walk(root)) {
            s.filter(p -> root.relativize(p).getNameCount() >= 2).map(Path::toString).sorted().forEach(left::add);
        }
        try (Stream<Path> s = Files.list(work)) {
            s.filter(p -> p.getFileName().toString().startsWith("hs_err")).map(Path::toString).forEach(left::add);
        }
        return left;
    }

    /** @return the state and holder slots of every {@code .ref} file left in the root, and which agent had which pid */
    private String diagnosis() throws IOException {
        final StringBuilder sb = new StringBuilder("\nagents:");
        for (Agent a : started) {
            sb.append(' ').append(a.id).append(": pid ").append(a.pid()).append(' ').append(a.fate).append(',');
        }
        try (Stream<Path> s = Files.walk(root)) {
            for (Path ref : s.filter(p -> p.toString().endsWith(".ref")).toList()) {
                sb.append('\n').append(ref).append(": state ").append(RefSlots.readState(ref)).append(", deleter pid ")
                    .append(ProcessWords.pidOf(RefSlots.readDeleter(ref)));
                for (int i = 0; i < RefSlots.slotsInUse(ref); i++) {
                    final long pid = RefSlots.read(ref, i, RefSlots.PID);
                    if (pid != 0) {
                        sb.append(", slot ").append(i).append(ProcessWords.isReclaimMark(pid)
                            ? " being reclaimed by pid " + ProcessWords.reclaimerOf(pid) + " from pid "
                                + ProcessWords.holderOf(pid) : " pid " + pid)
                            .append(" start ").append(RefSlots.read(ref, i, RefSlots.START)).append(" count ")
                            .append(RefSlots.read(ref, i, RefSlots.COUNT));
                    }
                }
            }
        }
        return sb.toString();
    }

    /**
     * Sleeps {@code millis}, waking early when an agent reported a failure.
     *
     * @return false when one did
     */
    private boolean pauseUnlessFailed(long millis) throws InterruptedException {
        final long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        while (System.nanoTime() < until) {
            synchronized (failures) {
                if (!failures.isEmpty()) {
                    return false;
                }
            }
            Thread.sleep(Math.min(50, Math.max(1, TimeUnit.NANOSECONDS.toMillis(until - System.nanoTime()))));
        }
        return true;
    }

    private void assertNoFailures(String when) {
        synchronized (failures) {
            if (!failures.isEmpty()) {
                fail(failures.size() + " failure(s) reported " + when + "; " + replay + failureSummary());
            }
        }
    }

    /** @return the first few failures reported, one per paragraph, or "" */
    private String failureSummary() {
        synchronized (failures) {
            final StringBuilder sb = new StringBuilder();
            for (StringBuilder f : failures.subList(0, Math.min(5, failures.size()))) {
                sb.append("\n\n").append(f.length() > 6000 ? f.substring(0, 6000) + "\n   | ..." : f);
            }
            return sb.toString();
        }
    }

    /** The controller's end of one agent: its stdout is read on a thread of its own, so every wait has a timeout. */
    private final class Agent {
        private static final String END = "\u0000end";
        final int id;
        final ChildJvm jvm;
        private final BlockingQueue<String> answers = new LinkedBlockingQueue<>();
        /** Set before this test ends it: any other end is a failure. */
        volatile Fate fate = Fate.RUNNING;
        volatile boolean ready;
        final long startNanos = System.nanoTime();
        volatile long readyNanos;

        Agent(int id, ChildJvm jvm) {
            this.id = id;
            this.jvm = jvm;
            final Thread reader = new Thread(this::read, "chaos-agent-" + id);
            reader.setDaemon(true);
            reader.start();
        }

        long pid() {
            return jvm.pid();
        }

        private void read() {
            StringBuilder failure = null;
            try {
                while (true) {
                    final String line = jvm.readLine();
                    if (line.startsWith("fail ")) {
                        failure = new StringBuilder(line);
                        synchronized (failures) {
                            failures.add(failure);
                        }
                    } else if (line.startsWith("   |") && failure != null) {
                        synchronized (failures) {
                            failure.append('\n').append(line);
                        }
                    } else if (line.startsWith("ready ")) {
                        readyNanos = System.nanoTime() - startNanos;
                        ready = true;
                    } else {
                        failure = null;
                        answers.add(line);
                    }
                }
            } catch (IOException e) {
                if (fate == Fate.RUNNING) {
                    synchronized (failures) {
                        failures.add(new StringBuilder("agent " + id + " pid " + pid() + " ended by itself: "
                            + e.getMessage()));
                    }
                }
            }
            answers.add(END);
        }

        /** @return the next line that is not a failure report, waiting at most ANSWER_SECONDS */
        String answer() throws InterruptedException {
            final String line = answers.poll(ANSWER_SECONDS, TimeUnit.SECONDS);
            if (line == null || line.equals(END)) {
                throw new AssertionError("agent " + id + " pid " + pid() + (line == null ? " did not answer within "
                    + ANSWER_SECONDS + " s" : " ended before answering") + "; " + replay + failureSummary());
            }
            return line;
        }

        void await(String wanted) throws InterruptedException {
            for (String line = answer(); !line.equals(wanted); line = answer()) {
                // an unexpected line (a library writing to stdout) is not an answer
            }
        }
    }
}
