package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An array created while the exit hook runs: {@code create} checked that the JVM was not exiting only at its start,
 * and the hook dropped the arrays it found registered, so a create that registered after that left its {@code .npy}
 * and {@code .ref} (an audit saw an 8 MiB {@code .npy} left by a {@code demo} stopped with SIGTERM), as did one
 * still making its files when the hooks ended and the JVM halted. The hook now waits for creates in progress, which
 * it refuses at registration, and deletes the files of one that does not end.
 */
class ExitDuringCreateTest {

    @Test
    void aCreateThatRegistersAfterTheExitHookBeganIsRefusedAndLeavesNothing(@TempDir Path root) throws Exception {
        final List<String> out = run(root, "refused");
        assertTrue(out.stream().anyMatch(l -> l.startsWith("refused ") && l.contains("this JVM is exiting")), out.toString());
        assertLeavesNothing(root, out);
    }

    @Test
    void aCreateStillGoingWhenTheHooksEndLeavesNothing(@TempDir Path root) throws Exception {
        assertLeavesNothing(root, run(root, "stuck"));
    }

    private static List<String> run(Path root, String mode) throws Exception {
        try (ChildJvm child = ChildJvm.start(CreateAtExit.class, List.of("-Dsharray.tempFolder=" + root), mode)) {
            final Process p = child.process();
            final List<String> lines;
            try (Stream<String> s = p.inputReader().lines()) {
                lines = s.collect(Collectors.toList()); // until the JVM has exited
            }
            assertTrue(p.waitFor(60, TimeUnit.SECONDS), "the child did not exit");
            assertEquals(0, p.exitValue(), lines.toString());
            return lines;
        }
    }

    private static void assertLeavesNothing(Path root, List<String> out) throws Exception {
        final Path folder = Path.of(out.get(0).substring("folder ".length()));
        final List<Path> left;
        try (Stream<Path> s = Files.walk(root)) {
            left = s.filter(f -> !Files.isDirectory(f)).collect(Collectors.toList());
        }
        assertEquals(List.of(), left, "files the exiting JVM left; it said " + out);
        assertFalse(Files.exists(folder), "its folder outlived it");
    }
}
