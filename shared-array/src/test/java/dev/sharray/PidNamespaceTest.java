package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Processes of two pid namespaces (two containers of a Kubernetes pod share its {@code /dev/shm}; {@code docker run
 * --ipc=host}) that use one root. A pid names another process, or none, in the other namespace: each reaper took
 * the other side's owners and holders for dead, and deleted their live arrays and folders (the first create of a
 * JVM in a container deleted every live array of the host's processes there, and the other way round).
 */
@ExtendWith(PrivateRoot.class) // the namespaced child sees this root only: its own /dev/shm and java.io.tmpdir
class PidNamespaceTest {

    @Test
    void processesOfAnotherPidNamespaceNeitherReapNorShareEachOthersArrays() throws Exception {
        assumeTrue(canUnshare(), "needs unshare of a pid and a mount namespace (root, or user namespaces)");
        final Path privateTmp = Files.createDirectories(Path.of(System.getProperty("sharray.tempFolder"), "tmp"));
        try (SharedArray mine = SharedArray.create(DType.FLOAT64, 100);
             ChildJvm other = ChildJvm.startWrapped(inNamespaces(), ArrayAgent.class,
                 List.of("-Djava.io.tmpdir=" + privateTmp))) {
            mine.setDouble(3, 7);
            other.expect("ready ");
            // its first create runs its reaper over this root, where this process's folder and array are
            final Descriptor theirs = ArrayAgent.create(other, "FLOAT64 100");
            other.send("reap");
            assertEquals("reaped 0 0", other.readLine(), "a reaper of another pid namespace removed something");
            assertTrue(Files.exists(mine.path()), "a process of another pid namespace deleted a live array of ours");
            assertEquals(3.0, mine.getDouble(7));

            final ReapReport report = SharedArrays.reap();
            assertTrue(Files.exists(theirs.path()) && Files.exists(Segments.refPathFor(theirs.path())),
                "this process's reaper deleted a live array of another pid namespace: " + report);

            final InvalidDescriptorException refused = assertThrows(InvalidDescriptorException.class,
                () -> SharedArray.open(theirs));
            assertTrue(refused.getMessage().contains("another pid namespace"), refused.getMessage());
            other.send("open " + HexFormat.of().formatHex(mine.descriptor().toBytes()));
            final String answer = other.readLine();
            assertTrue(answer.startsWith("error InvalidDescriptorException") && answer.contains("another pid namespace"),
                answer);

            assertEquals(0, other.finish(), "the child exits normally");
            assertTrue(!Files.exists(theirs.path()), "its exit hook deleted its array as usual");
        }
    }

    /** @return the command that runs a command in new pid and mount namespaces, with a private /dev/shm */
    private static List<String> inNamespaces() {
        return List.of("unshare", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc",
            "sh", "-c", "mount -t tmpfs none /dev/shm && exec \"$@\"", "sh");
    }

    private static boolean canUnshare() {
        try {
            final List<String> probe = new java.util.ArrayList<>(inNamespaces());
            probe.add("true");
            final Process p = new ProcessBuilder(probe).redirectErrorStream(true).start();
            p.getInputStream().readAllBytes();
            return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
        } catch (java.io.IOException | InterruptedException e) {
            return false;
        }
    }
}
