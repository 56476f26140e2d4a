package dev.sharray.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The {@code ./sharray} launcher's own logic, run for real in a scratch checkout whose {@code mvn} and
 * {@code java} are stand-ins that record their calls (a real build takes a minute): launchers started
 * together on a checkout that needs building run Maven once; a failed class-data training is not repeated
 * on every run; an archive changed since it was made is made again; a rebuild leaves the jar copies earlier runs
 * started from as they were.
 */
class LauncherBuildLockTest {
    @TempDir
    Path root;

    @Test
    void launchersStartedTogetherBuildOnce() throws Exception {
        Path bin = scratchCheckout();
        List<Process> launchers = new ArrayList<>();
        try {
            for (int i = 0; i < 3; i++) {
                launchers.add(launcher(bin, true, "--help"));
            }
            for (Process p : launchers) {
                assertFinishedOk(p);
            }
        } finally {
            launchers.forEach(Process::destroyForcibly); // a launcher stuck on the lock must not outlive the test
        }
        assertEquals(List.of("build"), Files.readAllLines(root.resolve("mvn-calls")), "Maven ran once");
        assertEquals(3, Files.readAllLines(root.resolve("java-runs")).size(), "every launcher ran the command");
        // built: a later launcher does not build again
        assertFinishedOk(launcher(bin, true, "--help"));
        assertEquals(List.of("build"), Files.readAllLines(root.resolve("mvn-calls")));
    }

    @Test
    void aFailedClassDataTrainingIsNotRepeatedOnEveryRun() throws Exception {
        Path bin = scratchCheckout(); // its java stand-in fails the training run
        for (int i = 0; i < 3; i++) {
            assertFinishedOk(launcher(bin, false, "--help"));
        }
        assertEquals(List.of("train"), Files.readAllLines(root.resolve("trainings")), "trained once, then not again");
        assertEquals(3, Files.readAllLines(root.resolve("java-runs")).size(), "the command still ran every time");
        for (String classpath : Files.readAllLines(root.resolve("java-runs"))) {
            // the -sources jar beside it was taken for the module's own once: "Could not find or load main class"
            assertTrue(classpath.split(":")[0].endsWith("/sharray-cli-0.jar"), classpath);
        }
        try (var files = Files.list(root.resolve("cli/target"))) {
            List<String> names = files.map(p -> p.getFileName().toString()).filter(n -> n.contains(".jsa")).toList();
            assertEquals(1, names.size(), names.toString());
            assertEquals(true, names.get(0).endsWith(".jsa.failed"), names.toString());
        }
    }

    /**
     * An archive written to after it was made crashes the JVM that maps it (SIGSEGV, seen with 64 KiB of the real
     * archive overwritten): the launcher drops an archive whose identity changed and makes it again.
     */
    @Test
    void aClassDataArchiveChangedSinceItWasMadeIsMadeAgain() throws Exception {
        Path bin = scratchCheckout();
        script(bin.resolve("java"), """
            case "$*" in
              *XshowSettings*) echo '    java.specification.version = 17' >&2 ;;
              *DumpLoadedClassList*) echo train >> "$ROOT_UNDER_TEST/trainings" ;;
              *Xshare:dump*) for a in "$@"; do case "$a" in -XX:SharedArchiveFile=*) echo archive > "${a#*=}" ;; esac; done ;;
              *dev.sharray.cli.Main*) used=none; for a in "$@"; do case "$a" in -XX:SharedArchiveFile=*) used=$(cat "${a#*=}") ;; esac; done
                echo "$used" >> "$ROOT_UNDER_TEST/archives-used" ;;
            esac
            exit 0
            """);
        assertFinishedOk(launcher(bin, false, "--help"));
        assertFinishedOk(launcher(bin, false, "--help"));
        assertEquals(List.of("train"), Files.readAllLines(root.resolve("trainings")));
        assertEquals(List.of("archive", "archive"), Files.readAllLines(root.resolve("archives-used")));

        Path archive;
        try (var files = Files.list(root.resolve("cli/target"))) {
            archive = files.filter(p -> p.toString().endsWith(".jsa")).findFirst().orElseThrow();
        }
        Files.writeString(archive, "damaged\n"); // in place: same inode, new size and time
        Process changed = launcher(bin, false, "--help");
        assertTrue(changed.waitFor(60, TimeUnit.SECONDS));
        String out = new String(changed.getInputStream().readAllBytes());
        assertEquals(0, changed.exitValue(), out);
        assertTrue(out.contains("class-data archive " + archive + " changed since it was made; making it again"), out);
        assertEquals(List.of("train", "train"), Files.readAllLines(root.resolve("trainings")));
        assertEquals(List.of("archive", "archive", "archive"), Files.readAllLines(root.resolve("archives-used")),
            "the damaged archive was never given to the JVM");

        assertFinishedOk(launcher(bin, false, "--help"));
        assertEquals(2, Files.readAllLines(root.resolve("trainings")).size(), "the new archive is kept");
        // an archive without its identity (made by an older launcher) is made again too
        Files.delete(Path.of(archive + ".id"));
        assertFinishedOk(launcher(bin, false, "--help"));
        assertEquals(3, Files.readAllLines(root.resolve("trainings")).size());
        assertEquals("archive", Files.readString(archive).strip());
    }

    @Test
    void aRebuildLeavesTheJarsOfEarlierRunsAsTheyWere() throws Exception {
        Path bin = scratchCheckout();
        assertFinishedOk(launcher(bin, true, "--help"));
        String firstClasspath = lastClasspath();
        Path firstJar = Path.of(firstClasspath.split(":")[0]);
        assertEquals("build 1", Files.readString(firstJar).strip());

        // a source changes: the next run rebuilds, and Maven rewrites the jars in target/ in place
        touchSource();
        assertFinishedOk(launcher(bin, true, "--help"));
        assertEquals(List.of("build", "build"), Files.readAllLines(root.resolve("mvn-calls")));
        assertEquals("build 2", Files.readString(root.resolve("cli/target/sharray-cli-0.jar")).strip());
        String secondClasspath = lastClasspath();
        assertNotEquals(firstClasspath, secondClasspath);
        assertEquals("build 2", Files.readString(Path.of(secondClasspath.split(":")[0])).strip());
        assertEquals("build 1", Files.readString(firstJar).strip(),
            "a JVM started before the rebuild (and the workers it starts later) still reads the jars it started with");

        // old copies are pruned, the last five kept
        for (int i = 0; i < 5; i++) {
            touchSource();
            assertFinishedOk(launcher(bin, true, "--help"));
        }
        try (var dirs = Files.list(root.resolve("cli/target/run"))) {
            assertEquals(5, dirs.filter(Files::isDirectory).count());
        }
        assertFalse(Files.exists(firstJar));
        assertEquals("build 7", Files.readString(Path.of(lastClasspath().split(":")[0])).strip());
    }

    /**
     * In a checkout whose path has a blank (a copy named "sharray copy" beside "sharray"), the pruning of old jar
     * copies went through {@code xargs}, which split each path at the blank: it ran {@code rm -rf .../my}, the folder
     * before the blank, and pruned nothing.
     */
    @Test
    void copiesArePrunedInACheckoutWhosePathHasABlankAndNothingElseIsTouched() throws Exception {
        final Path parent = root;
        root = Files.createDirectories(parent.resolve("my copy"));
        final Path decoy = Files.createDirectories(parent.resolve("my"));
        Files.writeString(decoy.resolve("precious.txt"), "keep me");
        Path bin = scratchCheckout();
        for (int i = 0; i < 7; i++) {
            touchSource();
            assertFinishedOk(launcher(bin, true, "--help"));
        }
        assertEquals("keep me", Files.readString(decoy.resolve("precious.txt")));
        try (var dirs = Files.list(root.resolve("cli/target/run"))) {
            assertEquals(5, dirs.filter(Files::isDirectory).count(), "the last five copies are kept, the rest pruned");
        }
    }

    /** Run through a link (~/bin/sharray), the launcher took the link's folder for the checkout: "build failed". */
    @Test
    void theLauncherRunsThroughALinkToIt() throws Exception {
        Path bin = scratchCheckout();
        Path links = Files.createDirectories(root.resolve("links"));
        Path link = Files.createSymbolicLink(links.resolve("sharray"), root.resolve("sharray"));
        List<String> cmd = List.of("bash", link.toString(), "--help");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("ROOT_UNDER_TEST", root.toString());
        pb.environment().put("SHARRAY_NO_CDS", "1");
        assertFinishedOk(pb.start());
        assertEquals(1, Files.readAllLines(root.resolve("java-runs")).size(), "the command did not run");
        try (var files = Files.list(links)) {
            assertEquals(List.of("sharray"), files.map(p -> p.getFileName().toString()).toList(), "left beside the link");
        }
    }

    /** Ctrl-C during the build (a minute, the first run): "build failed" with exit 1, as if Maven had failed. */
    @Test
    void ctrlCDuringTheBuildExitsAsInterrupted() throws Exception {
        Path bin = scratchCheckout();
        Process interrupted = launcher(bin, true, Map.of("INTERRUPT_BUILD", "1"), "--help");
        assertTrue(interrupted.waitFor(60, TimeUnit.SECONDS));
        String out = new String(interrupted.getInputStream().readAllBytes());
        assertEquals(130, interrupted.exitValue(), out);
        assertFalse(out.contains("build failed"), out);
        assertFalse(Files.exists(root.resolve("java-runs")), "the command ran after Ctrl-C");
    }

    /**
     * Ctrl-C during the class-data training (~4 s, the first run after a build): the training JVM exits 130 rather
     * than dies of the signal, so the launcher went on, marked the training failed (no archive for this build) and
     * ran the command the user meant to stop.
     */
    @Test
    void ctrlCDuringTheClassDataTrainingStopsTheLauncherWithoutMarkingTheTrainingFailed() throws Exception {
        Path bin = scratchCheckout();
        assertFinishedOk(launcher(bin, true, "--help")); // the build, without a training
        Process interrupted = launcher(bin, false, Map.of("INTERRUPT_TRAINING", "1"), "--help");
        assertTrue(interrupted.waitFor(60, TimeUnit.SECONDS));
        assertEquals(130, interrupted.exitValue(), new String(interrupted.getInputStream().readAllBytes()));
        assertEquals(1, Files.readAllLines(root.resolve("java-runs")).size(), "the command ran after Ctrl-C");
        try (var files = Files.list(root.resolve("cli/target"))) {
            assertEquals(List.of(), files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".failed")).toList());
        }
    }

    /**
     * The JDK prints "WARNING: Using incubator modules" on every JVM that resolves the Vector API module, so the CLI's
     * JVM gets it only where it may run the codec's pure-Java backend: {@code ec} (not its help), and the demo on
     * threads (not its help).
     */
    @Test
    void onlyCommandsThatMayCodeInTheCliJvmGetTheVectorModule() throws Exception {
        Path bin = scratchCheckout();
        String[][] commands = {{"ls"}, {"clean"}, {"--help"}, {"-q", "ls"}, {"demo"}, {"ec", "encode", "x"},
            {"-q", "ec", "verify", "y"}, {"demo", "--threads"}, {"ec", "--help"}, {"ec", "encode", "-h"},
            {"demo", "--threads", "--help"}};
        for (String[] args : commands) {
            assertFinishedOk(launcher(bin, false, args));
        }
        // the CLI takes any mode starting with "thread", in any case; the property wins over the variable
        List<Map<String, String>> environments = List.of(Map.of("SHARRAY_PARALLEL", "threads"),
            Map.of("SHARRAY_PARALLEL", "THREAD"), Map.of("SHARRAY_JAVA_OPTS", "-Xmx1g -Dsharray.parallel=Threads"),
            Map.of("SHARRAY_PARALLEL", "threads", "SHARRAY_JAVA_OPTS", "-Dsharray.parallel=pool"),
            Map.of("SHARRAY_PARALLEL", "pool"));
        for (Map<String, String> environment : environments) {
            assertFinishedOk(launcher(bin, false, environment, "demo"));
        }
        List<String> runs = Files.readAllLines(root.resolve("java-commands"));
        assertEquals(commands.length + environments.size(), runs.size(), runs.toString());
        List<Boolean> withModule = runs.stream().map(r -> r.contains("--add-modules=jdk.incubator.vector")).toList();
        assertEquals(List.of(false, false, false, false, false, true, true, true, false, false, false,
            true, true, true, false, false), withModule, runs.toString());
        assertTrue(runs.get(0).contains("--add-exports=java.base/jdk.internal.misc=ALL-UNNAMED"), "the other flags stay");
    }

    @Test
    void whereNoCopyCanBeMadeCommandsRunFromTheBuildsJars() throws Exception {
        Path bin = scratchCheckout();
        assertFinishedOk(launcher(bin, true, "--help"));
        // the copies' folder cannot be created (a read-only checkout; a file in its place here, since root
        // may write anywhere): the launcher still runs the command, from target/ as before copies existed
        Path run = root.resolve("cli/target/run");
        try (var files = Files.walk(run)) {
            files.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
        }
        Files.writeString(run, "not a folder\n");
        assertFinishedOk(launcher(bin, true, "--help"));
        assertEquals(root.resolve("cli/target/sharray-cli-0.jar").toString(), lastClasspath().split(":")[0]);
        touchSource();
        assertFinishedOk(launcher(bin, true, "--help")); // a rebuild whose copy fails still runs the command
        assertEquals(List.of("build", "build"), Files.readAllLines(root.resolve("mvn-calls")));
        assertEquals(3, Files.readAllLines(root.resolve("java-runs")).size(), "every launcher ran the command");
    }

    @Test
    void aCopyThatFailsHalfwayLeavesNothingBehind() throws Exception {
        Path bin = scratchCheckout();
        assertFinishedOk(launcher(bin, true, "--help"));
        // the next build lists a project jar that cannot be copied: the copy fails after its folder was made
        script(bin.resolve("mvn"), """
            echo build >> "$ROOT_UNDER_TEST/mvn-calls"
            echo "build 2" > "$ROOT_UNDER_TEST/cli/target/sharray-cli-0.jar"
            printf '%s' "$ROOT_UNDER_TEST/cli/target/sharray-cli-0.jar:$ROOT_UNDER_TEST/cli/target/gone.jar" \
              > "$ROOT_UNDER_TEST/cli/target/classpath.txt"
            """);
        touchSource();
        assertFinishedOk(launcher(bin, true, "--help"));
        assertEquals(List.of("build", "build"), Files.readAllLines(root.resolve("mvn-calls")));
        try (var entries = Files.list(root.resolve("cli/target/run"))) {
            List<String> names = entries.map(p -> p.getFileName().toString()).sorted().toList();
            assertEquals(1, names.size(), "the first copy only: no half-made one, no name of a copy older than the build: "
                + names);
        }
        assertEquals(root.resolve("cli/target/sharray-cli-0.jar").toString(), lastClasspath().split(":")[0],
            "the command ran from the new build in target/, not from the copy of the build before");
    }

    /**
     * Another user runs the launcher of a checkout that needs a build (never built with ./sharray, or its
     * sources changed): they can write neither target/ nor the build log there, so the launcher says that
     * instead of "building..." and "build failed; see .../.build.log" for a log it could not write.
     */
    @Test
    void anotherUsersCheckoutThatNeedsABuildSaysSoWithoutBuilding() throws Exception {
        assertEquals(0, (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid"),
            "running the launcher as another user needs root (CI runs as root)");
        Path bin = scratchCheckout();
        Files.setPosixFilePermissions(root, PosixFilePermissions.fromString("rwxr-xr-x")); // readable, not writable
        List<String> cmd = List.of("setpriv", "--reuid=65534", "--regid=65534", "--clear-groups",
            "bash", root.resolve("sharray").toString(), "--help");
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("ROOT_UNDER_TEST", root.toString());
        Process p = pb.start();
        try {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher finished");
            String out = new String(p.getInputStream().readAllBytes());
            assertEquals(1, p.exitValue(), out);
            assertTrue(out.contains(root + " needs a build, but ") && out.contains(" cannot write to it"), out);
            assertFalse(out.contains("build failed") || out.contains("Permission denied"), out);
        } finally {
            p.destroyForcibly();
        }
        assertFalse(Files.exists(root.resolve("mvn-calls")), "Maven was not run");
    }

    /** A source file newer than the last build. */
    private void touchSource() throws Exception {
        Path src = root.resolve("cli/src/Changed.java");
        Files.writeString(src, "class Changed {}\n");
        Files.setLastModifiedTime(src, FileTime.from(Instant.now().plusSeconds(60)));
    }

    /** @return the classpath the last launcher gave the CLI's JVM */
    private String lastClasspath() throws Exception {
        List<String> runs = Files.readAllLines(root.resolve("java-runs"));
        return runs.get(runs.size() - 1);
    }

    private static void assertFinishedOk(Process p) throws Exception {
        try {
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the launcher finished");
            assertEquals(0, p.exitValue(), new String(p.getInputStream().readAllBytes()));
        } finally {
            p.destroyForcibly();
        }
    }

    /** A checkout that needs building, with stand-ins for mvn and java on the returned bin folder. */
    private Path scratchCheckout() throws Exception {
        Path repo = Path.of(System.getProperty("user.dir")).getParent();
        Files.copy(repo.resolve("sharray"), root.resolve("sharray"));
        Files.createDirectories(root.resolve("config"));
        Files.copy(repo.resolve("config/jvm.flags"), root.resolve("config/jvm.flags"));
        Files.writeString(root.resolve("pom.xml"), "<project/>\n");
        Files.createDirectories(root.resolve("cli/src"));
        Path bin = Files.createDirectories(root.resolve("bin"));
        // a build that takes a while, so the launchers overlap; it leaves what the launcher checks for
        script(bin.resolve("mvn"), """
            echo build >> "$ROOT_UNDER_TEST/mvn-calls"
            # Ctrl-C reaches the whole foreground group: the launcher, and Maven's JVM, which exits 130 on it
            [ -z "${INTERRUPT_BUILD:-}" ] || { kill -INT "$PPID"; exit 130; }
            sleep 1
            mkdir -p "$ROOT_UNDER_TEST/cli/target"
            echo "build $(wc -l < "$ROOT_UNDER_TEST/mvn-calls")" > "$ROOT_UNDER_TEST/cli/target/sharray-cli-0.jar" # in place, as Maven does
            echo sources > "$ROOT_UNDER_TEST/cli/target/sharray-cli-0-sources.jar" # beside it, sorted first by ls
            printf '%s' "$ROOT_UNDER_TEST/cli/target/sharray-cli-0.jar" > "$ROOT_UNDER_TEST/cli/target/classpath.txt"
            """);
        script(bin.resolve("java"), """
            case "$*" in
              *XshowSettings*) echo '    java.specification.version = 17' >&2 ;;
              *DumpLoadedClassList*) echo train >> "$ROOT_UNDER_TEST/trainings"
                # Ctrl-C reaches the whole foreground group: the launcher, and the JVM, which exits 130 on it
                [ -z "${INTERRUPT_TRAINING:-}" ] || { kill -INT "$PPID"; exit 130; }
                exit 1 ;;
              *dev.sharray.cli.Main*) prev=; for a in "$@"; do [ "$prev" = -cp ] && echo "$a" >> "$ROOT_UNDER_TEST/java-runs"; prev=$a; done
                echo "$*" >> "$ROOT_UNDER_TEST/java-commands" ;;
            esac
            exit 0
            """);
        return bin;
    }

    private Process launcher(Path bin, boolean noClassData, String... args) throws Exception {
        return launcher(bin, noClassData, Map.of(), args);
    }

    private Process launcher(Path bin, boolean noClassData, Map<String, String> environment, String... args)
            throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", root.resolve("sharray").toString()));
        cmd.addAll(List.of(args));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectErrorStream(true);
        pb.environment().put("PATH", bin + ":" + System.getenv("PATH"));
        pb.environment().put("ROOT_UNDER_TEST", root.toString());
        if (noClassData) {
            pb.environment().put("SHARRAY_NO_CDS", "1");
        } else {
            pb.environment().remove("SHARRAY_NO_CDS");
        }
        pb.environment().remove("SHARRAY_PARALLEL");
        pb.environment().remove("SHARRAY_JAVA_OPTS");
        pb.environment().putAll(environment);
        return pb.start();
    }

    private static void script(Path file, String body) throws Exception {
        Files.writeString(file, "#!/usr/bin/env bash\nset -eu\n" + body);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwx------"));
    }
}
