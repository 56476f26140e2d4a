package dev.sharray.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.sharray.ArrayAgent;
import dev.sharray.ChildJvm;
import dev.sharray.Descriptor;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
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
        long pid;
        try (ChildJvm child = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.tempFolder=" + temp))) {
            child.expect("ready");
            pid = child.pid();
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
            assertFalse(row.contains("(dead)"), row);

            Cli.Result keep = Cli.run(temp, "clean");
            assertEquals(0, keep.exit(), keep::toString);
            assertTrue(Files.exists(data), "clean must not touch a live owner's array");

            child.kill9();
        }
        Cli.Result dead = Cli.run(temp, "ls");
        assertTrue(rowFor(dead.out(), data).contains("no (run 'sharray clean')"), dead::toString);
        assertTrue(rowFor(dead.out(), data).contains(" " + pid + ":1 (dead) "), dead::toString);

        Cli.Result dry = Cli.run(temp, "clean", "--dry-run");
        assertEquals(0, dry.exit(), dry::toString);
        assertTrue(dry.out().contains("would remove " + folder), dry::toString);
        assertTrue(dry.out().contains("would delete array " + data), dry::toString);
        assertTrue(Files.exists(data), "--dry-run deletes nothing");

        Cli.Result clean = Cli.run(temp, "clean");
        assertEquals(0, clean.exit(), clean::toString);
        assertTrue(clean.out().contains("removed folder " + folder), clean::toString);
        assertTrue(clean.out().contains("freed"), clean::toString);
        String freed = clean.out().lines().filter(l -> l.startsWith("freed ")).findFirst().orElseThrow();
        assertTrue(dry.out().contains("dry run: " + freed.substring("freed ".length()).replaceFirst(":", " would be freed:")),
            () -> "the dry run said otherwise than clean did\n" + dry + "\n" + clean);
        assertFalse(Files.exists(data));
        assertFalse(Files.exists(folder));

        Cli.Result after = Cli.run(temp, "ls");
        assertFalse(after.out().contains(folder.toString()), after::toString);
    }

    /**
     * Nothing found: said with where it looked, and how to look where a program's -Dsharray.tempFolder put its arrays
     * (new-user review 50: "no shared arrays" alone, for arrays under such a root).
     */
    @Test
    void anEmptyListingNamesTheRootsItLookedUnder() throws Exception {
        Cli.Result none = Cli.run(temp, "ls");
        assertEquals(0, none.exit(), none::toString);
        String said = none.out().strip();
        assertTrue(said.startsWith("no shared arrays under ") && said.contains(temp.toString())
            && said.contains("/dev/shm") && said.endsWith("run this with SHARRAY_TEMP_FOLDER=DIR)"), said);
    }

    @Test
    void aDeadOwnersFolderWithoutArraysIsInTheDryRunAndThenCleaned() throws Exception {
        Path folder;
        try (ChildJvm child = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.tempFolder=" + temp))) {
            child.expect("ready");
            child.send("folder"); // its own folder, as a worker pool makes for its ring and argument files
            folder = Path.of(child.expect("folder "));
            assertTrue(folder.startsWith(temp), folder.toString());
            Files.write(folder.resolve("pool-1.ring"), new byte[3000]);
            Files.write(folder.resolve("pool-1.args"), new byte[96]);
            child.kill9();
        }
        // before, the dry run counted .npy arrays only: "nothing to clean", and then clean removed the folder
        Cli.Result dry = Cli.run(temp, "clean", "--dry-run");
        assertEquals(0, dry.exit(), dry::toString);
        assertEquals(List.of("would remove " + folder + " (folder of a dead owner)",
            "dry run: 3.02 KiB would be freed: 1 folder(s), 0 array(s), 0 reference(s) of dead processes"),
            dry.out().lines().toList());
        assertTrue(Files.exists(folder.resolve("pool-1.ring")) && Files.exists(folder.resolve("pool-1.args")),
            "--dry-run deletes nothing");

        Cli.Result clean = Cli.run(temp, "clean");
        assertEquals(0, clean.exit(), clean::toString);
        assertEquals(List.of("removed folder " + folder,
            "freed 3.02 KiB: 1 folder(s), 0 array(s), 0 reference(s) of dead processes"), clean.out().lines().toList());
        assertFalse(Files.exists(folder));
        Cli.Result again = Cli.run(temp, "clean", "--dry-run");
        assertEquals("nothing to clean\n", again.out(), again::toString);
    }

    @Test
    void lsNamesAnArrayItCannotReadWithTheReasonInsteadOfSkippingIt() throws Exception {
        try (ChildJvm child = ChildJvm.start(ArrayAgent.class, List.of("-Dsharray.tempFolder=" + temp))) {
            child.expect("ready");
            final Path intact = create(child, "FLOAT64 10");
            final Path damaged = create(child, "INT32 7");
            final Path missing = create(child, "INT8 3");
            try (FileChannel ch = FileChannel.open(damaged, StandardOpenOption.WRITE)) {
                ch.write(ByteBuffer.wrap(new byte[] {'G', 'A', 'R', 'B', 'A', 'G', 'E'}), 0);
            }
            Files.delete(missing);

            Cli.Result ls = Cli.run(temp, "ls");
            assertEquals(0, ls.exit(), ls::toString);
            assertTrue(rowFor(ls.out(), intact).contains("FLOAT64"), ls::toString);
            final List<String> lines = ls.out().lines().toList();
            final int header = lines.indexOf("2 array file(s) that cannot be listed:");
            assertTrue(header > 0, ls::toString);
            assertTrue(lines.contains(damaged + ": its data file is not a readable .npy file: npy.magic: not a .npy file"
                + " (bad magic)"), ls::toString);
            assertTrue(lines.contains(missing + ": its data file is missing, while its reference file says it is live"),
                ls::toString);
        }
    }

    /** @return the data file of the array {@code agent} creates */
    private static Path create(ChildJvm agent, String dtypeAndShape) throws Exception {
        agent.send("create " + dtypeAndShape);
        return Descriptor.fromBytes(HexFormat.of().parseHex(agent.expect("desc "))).path();
    }

    private static String rowFor(String ls, Path data) {
        return ls.lines().filter(l -> l.startsWith(data.toString())).findFirst()
            .orElseThrow(() -> new AssertionError("no row for " + data + " in\n" + ls)).strip();
    }
}
