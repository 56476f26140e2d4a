package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * System calls failing as tests cannot otherwise make them fail, injected by strace into a child JVM's main thread
 * while it creates an array (fault review 49). Each case: the create's outcome, no file left, and a clean create once
 * the tracer is gone. Needs strace (run-tests.sh installs it) and ptrace rights over the child (CI runs as root).
 */
@Timeout(value = 120, threadMode = Timeout.ThreadMode.SEPARATE_THREAD)
class InjectedSystemCallFaultsTest {
    @TempDir
    Path root;

    /** An mmap that fails with EINTR: the JDK gave a mapping at -3, and the first access ended the JVM (F1). */
    @Test
    void anInterruptedMmapIsRefusedAndTheJvmLivesOn() throws Exception {
        final List<String> out = createUnder("mmap", "mmap:error=EINTR:when=1"); // the first: the refcount file's
        assertTrue(out.get(0).startsWith("go: refused java.io.UncheckedIOException: cannot map ")
            && out.get(0).contains("gave no mapping"), out.toString());
        assertClean(out);
    }

    /**
     * The open of the file create preallocates failing (EMFILE here; EINTR on a network file system): JNA's
     * LastErrorException, naming no file, escaped create (F2). Now create writes the pages instead, as where the file
     * system has no fallocate. The third openat of a create is that open (after creating the file and writing its
     * header).
     */
    @Test
    void aFailedOpenForThePreallocationFallsBackToWritingThePages() throws Exception {
        final List<String> out = createUnder("openat", "openat:error=EMFILE:when=3");
        assertEquals("go: created 42.5", out.get(0), out.toString());
        assertClean(out);
    }

    /** A disk quota met at the preallocation (EDQUOT): a full file system to this user, as ENOSPC is (F4). */
    @Test
    void aQuotaMetAtThePreallocationIsInsufficientSpace() throws Exception {
        final List<String> out = createUnder("fallocate", "fallocate:error=EDQUOT");
        assertTrue(out.get(0).startsWith("go: refused dev.sharray.InsufficientSpaceException: not enough space in ")
            && out.get(0).contains("past this user's disk quota (EDQUOT)"), out.toString());
        assertClean(out);
    }

    /**
     * A failed mmap of a Chronicle array's file (EIO): Chronicle's IORuntimeException, naming no file, escaped create
     * (fault review 49, F6). The second mmap of the create is the data file's, the first its reference file's.
     */
    @Test
    void aFailedChronicleMappingNamesTheFile() throws Exception {
        final List<String> out = run("mmap", "mmap:error=EIO:when=2", "chronicle", "chronicle again");
        assertTrue(out.get(0).startsWith("chronicle: refused java.io.UncheckedIOException: cannot map ")
            && out.get(0).contains(".npy: "), out.toString());
        assertNothingLeftAndRetried(out, "chronicle", "created 42.5");
    }

    /**
     * A folder that cannot be read while listing (EIO from getdents64 here): listAll answered no arrays and nothing
     * unlisted, without a word, while this very child held one (F5). The folder is unlisted now, with the reason.
     */
    @Test
    void aFolderThatCannotBeReadIsUnlistedNotSilentlyEmpty() throws Exception {
        final List<String> out = run("getdents64", "getdents64:error=EIO", "list");
        assertTrue(out.get(0).startsWith("list: listed false, unlisted [Unlisted[path=")
            && out.get(0).contains("the folder could not be read (") && out.get(0).contains("Input/output error"), out.get(0));
        assertTrue(out.get(2).startsWith("list: listed true, unlisted []"), out.toString());
        assertEquals("list: files left 0", out.get(3), out.toString());
    }

    /**
     * The same for an owner's folder inside the user folder: the second getdents64 of a listing is the first of the
     * child's own folder (the first read the user folder and found it). Unlisted by that folder's path.
     */
    @Test
    void anOwnersFolderThatCannotBeReadIsUnlistedToo() throws Exception {
        final List<String> out = run("getdents64", "getdents64:error=EIO:when=2", "list");
        assertTrue(out.get(0).startsWith("list: listed false, unlisted [Unlisted[path=" + root + "/sharray-")
            && out.get(0).matches(".*/sharray-[^/]+/[^/,]+-t\\d+-[0-9a-f]{8}, reason=the folder could not be read \\(.*Input/output error.*"),
            out.get(0));
        assertTrue(out.get(2).startsWith("list: listed true, unlisted []"), out.toString());
        assertEquals("list: files left 0", out.get(3), out.toString());
    }

    /**
     * A failed read of a {@code .npy} file's header (EIO from pread64) was "cannot map": a user looks at address-space
     * and map-count limits then (fault review 49, F6). It says it was a read now.
     */
    @Test
    void aFailedHeaderReadSaysItWasARead() throws Exception {
        final List<String> out = run("pread64", "pread64:error=EIO:when=1", "npy", "npy again");
        assertTrue(out.get(0).startsWith("npy: refused java.io.UncheckedIOException: cannot read the header of ")
            && out.get(0).endsWith("user.npy: Input/output error"), out.toString());
        assertNothingLeftAndRetried(out, "npy", "opened 42.5");
    }

    private static void assertClean(List<String> out) {
        assertEquals("go: files left 0", out.get(1), out.toString());
        assertEquals("again: created 42.5", out.get(2), out.toString());
        assertEquals("again: files left 0", out.get(3), out.toString());
    }

    /** {@code command} under the fault left no file, and "{@code command} again" without it gave {@code outcome}. */
    private static void assertNothingLeftAndRetried(List<String> out, String command, String outcome) {
        assertEquals(command + ": files left 0", out.get(1), out.toString());
        assertEquals(command + " again: " + outcome, out.get(2), out.toString());
        assertEquals(command + " again: files left 0", out.get(3), out.toString());
    }

    /** @return the child's four lines: the create under the injected fault and its files left, then the same again */
    private List<String> createUnder(String call, String injection) throws Exception {
        return run(call, injection, "go", "again");
    }

    /** @return the child's lines for its first command, under the injected fault, then for its second without */
    private List<String> run(String call, String injection, String... commands) throws Exception {
        final String first = commands[0];
        final String second = commands.length > 1 ? commands[1] : commands[0];
        final List<String> options = List.of("-Dsharray.tempFolder=" + root, "-XX:ErrorFile=" + root + "/hs_err_%p.log");
        final Process child = new ProcessBuilder(JvmFlags.javaCommand(options, InjectedFaultChild.class.getName()))
            .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        try (BufferedReader lines = new BufferedReader(new InputStreamReader(child.getInputStream(),
                StandardCharsets.UTF_8)); Writer input = new OutputStreamWriter(child.getOutputStream(),
                StandardCharsets.UTF_8)) {
            final String ready = lines.readLine();
            assertTrue(ready != null && ready.startsWith("ready "), "the child's first line: " + ready);
            final String thread = ready.substring("ready ".length());
            final Process strace = new ProcessBuilder("strace", "-qq", "-p", thread, "-e", "trace=" + call,
                "-e", "inject=" + injection, "-o", "/dev/null").redirectErrorStream(true).start();
            try {
                awaitTracer(child.pid(), thread, strace);
                send(input, first);
                final List<String> out = new ArrayList<>(List.of(lines.readLine(), lines.readLine()));
                strace.destroy(); // detaches
                assertTrue(strace.waitFor(30, TimeUnit.SECONDS), "strace ended");
                send(input, second);
                out.add(lines.readLine());
                out.add(lines.readLine());
                return out;
            } finally {
                strace.destroyForcibly();
            }
        } finally {
            child.destroyForcibly();
            child.waitFor(30, TimeUnit.SECONDS);
        }
    }

    private static void awaitTracer(long pid, String thread, Process strace) throws Exception {
        final Path status = Path.of("/proc", Long.toString(pid), "task", thread, "status");
        for (int i = 0; i < 300; i++) {
            if (Files.readAllLines(status).stream().anyMatch(l -> l.matches("TracerPid:\\s*[1-9]\\d*"))) {
                return;
            }
            assertTrue(strace.isAlive(), () -> "strace ended: " + output(strace));
            Thread.sleep(20);
        }
        throw new AssertionError("strace did not attach in 6 s (it needs ptrace rights over the child)");
    }

    private static String output(Process p) {
        try {
            return new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            return e.toString();
        }
    }

    private static void send(Writer commands, String line) throws IOException {
        commands.write(line + "\n");
        commands.flush();
    }
}
