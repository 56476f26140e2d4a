package dev.sharray.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sharray demo} in a real subprocess: the table, exit 0, and no files left behind. */
class DemoTest {
    @TempDir
    Path temp;

    @Test
    void smallDemoPrintsTheTableAndLeavesNoFiles() throws Exception {
        Cli.Result r = Cli.run(temp, "demo", "--size", "24M", "--workers", "2");
        assertEquals(0, r.exit(), r::toString);
        for (String s : List.of("step", "throughput", "copy-based handoff would move", "create", "map in place",
            "reduce: sum", "erasure-code RS(10,4) in place", "destroy 4 of 14 shards per stripe",
            "reconstruct 4 shards per stripe", "verify bytes and parity", "release")) {
            assertTrue(r.out().contains(s), () -> "missing '" + s + "' in\n" + r);
        }
        assertTrue(r.err().contains("no demo files left"), r::toString);
        // freeing takes the same time whatever the size: the release row shows no bytes per second
        String[] release = r.out().lines().filter(l -> l.startsWith("release ")).findFirst().orElseThrow()
            .trim().split(" {2,}");
        assertEquals(List.of("release", "-", "-"), List.of(release[0], release[3], release[4]), String.join("|", release));
        try (Stream<Path> s = Files.walk(temp)) {
            List<Path> files = s.filter(Files::isRegularFile).toList();
            assertTrue(files.isEmpty(), "left behind: " + files);
        }
    }

    @Test
    void quietPrintsOnlyTheTable() throws Exception {
        Cli.Result r = Cli.run(temp, "demo", "--size", "2M", "--quiet");
        assertEquals(0, r.exit(), r::toString);
        assertEquals("", r.err(), r::toString);
        assertTrue(r.out().contains("verify bytes and parity"), r::toString);
    }

    @Test
    void helpEverywhere() throws Exception {
        for (List<String> cmd : List.of(List.of("--help"), List.of("demo", "--help"), List.of("ec", "--help"),
            List.of("ec", "encode", "--help"), List.of("ec", "decode", "--help"), List.of("ec", "verify", "-h"),
            List.of("ec", "repair", "--help"), List.of("ls", "--help"), List.of("clean", "--help"))) {
            Cli.Result r = Cli.run(temp, cmd.toArray(new String[0]));
            assertEquals(0, r.exit(), r::toString);
            assertTrue(r.out().startsWith("Usage: sharray"), r::toString);
        }
        assertEquals(2, Cli.run(temp).exit());
        assertEquals(2, Cli.run(temp, "ec").exit());
    }
}
