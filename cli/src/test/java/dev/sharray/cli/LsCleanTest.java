package dev.sharray.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.ArrayAgent;
import dev.sharray.ChildJvm;
import dev.sharray.Descriptor;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code sharray ls} and {@code clean} against an owner JVM killed with SIGKILL. */
class LsCleanTest {
    @TempDir
    Path temp;

    @Test
    void lsShowsALiveThenDeadOwnerAndCleanReapsIt() throws Exception {
        Path data;
        Path folder;
        try (ChildJvm child = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.tempFolder=" + temp))) {
            child.expect("ready");
            child.send("create FLOAT64 1000 3");
            String hex = child.expect("desc ");
            data = Descriptor.fromBytes(HexFormat.of().parseHex(hex)).path();
            folder = data.getParent();
            assertTrue(data.startsWith(temp), data.toString());
            assertTrue(Files.exists(data));

            Cli.Result live = Cli.run(temp, "ls");
            assertEquals(0, live.exit(), live::toString);
            String row = rowFor(live.out(), data);
            assertTrue(row.contains("FLOAT64") && row.contains("[1000, 3]") && row.contains(child.pid() + ":1")
                && row.endsWith("yes"), row);

            Cli.Result keep = Cli.run(temp, "clean");
            assertEquals(0, keep.exit(), keep::toString);
            assertTrue(Files.exists(data), "clean must not touch a live owner's array");

            child.kill9();
        }
        Cli.Result dead = Cli.run(temp, "ls");
        assertTrue(rowFor(dead.out(), data).contains("no (run 'sharray clean')"), dead::toString);

        Cli.Result dry = Cli.run(temp, "clean", "--dry-run");
        assertEquals(0, dry.exit(), dry::toString);
        assertTrue(dry.out().contains("would remove " + folder), dry::toString);
        assertTrue(Files.exists(data), "--dry-run deletes nothing");

        Cli.Result clean = Cli.run(temp, "clean");
        assertEquals(0, clean.exit(), clean::toString);
        assertTrue(clean.out().contains("removed folder " + folder), clean::toString);
        assertTrue(clean.out().contains("freed"), clean::toString);
        assertFalse(Files.exists(data));
        assertFalse(Files.exists(folder));

        Cli.Result after = Cli.run(temp, "ls");
        assertFalse(after.out().contains(temp.toString()), after::toString);
    }

    private static String rowFor(String ls, Path data) {
        return ls.lines().filter(l -> l.startsWith(data.toString())).findFirst()
            .orElseThrow(() -> new AssertionError("no row for " + data + " in\n" + ls)).strip();
    }
}
