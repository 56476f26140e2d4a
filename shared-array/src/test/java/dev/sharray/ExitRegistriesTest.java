package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What other components register for a normal exit ({@link SharedArrays#deleteAtExit}, {@link SharedArrays#runAtExit})
 * cannot stop sharray's exit hook: a null file, registered silently, ended it with a NullPointerException before it
 * released the process's arrays, and so did a file whose deletion threw a RuntimeException or an action that threw an
 * Error; the arrays and the folder stayed until another process's reaper pass.
 */
@ExtendWith(PrivateRoot.class) // another JVM's reaper would remove the dead child's folder before the test looks
class ExitRegistriesTest {
    @Test
    void nullsAreRefusedWhenRegistered() {
        assertEquals("file", assertThrows(NullPointerException.class, () -> SharedArrays.deleteAtExit(null)).getMessage());
        assertEquals("action", assertThrows(NullPointerException.class, () -> SharedArrays.runAtExit(null)).getMessage());
        assertEquals("file", assertThrows(NullPointerException.class,
            () -> SharedArrays.createDeletedAtExit(null, () -> null)).getMessage());
        assertEquals("creation", assertThrows(NullPointerException.class,
            () -> SharedArrays.createDeletedAtExit(SharedArrays.processFolder().resolve("never"), null)).getMessage());
    }

    @Test
    void aFileThatCannotBeDeletedLeavesTheExitToReleaseTheArrays() throws Exception {
        assertTheExitCleansUp("undeletable-file");
    }

    @Test
    void anActionThatFailsWithAnErrorLeavesTheExitToReleaseTheArrays() throws Exception {
        assertTheExitCleansUp("failing-action");
    }

    private static void assertTheExitCleansUp(String mode) throws Exception {
        final Path folder;
        try (ChildJvm child = ChildJvm.start(ExitRegistriesChild.class, List.of(), mode)) {
            folder = Path.of(child.expect("folder "));
            assertTrue(Files.isDirectory(folder), "the premise: " + folder);
            assertEquals(0, child.finish());
        }
        assertFalse(Files.exists(folder), "the exit left " + folder + " and its array behind");
    }
}
