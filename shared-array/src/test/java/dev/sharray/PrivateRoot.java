package dev.sharray;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Gives each test a root folder of its own ({@code -Dsharray.tempFolder}, which {@link ChildJvm} children inherit):
 * no other process's reaper (another test JVM's) acts on the dead processes' folders and roles a test sets up
 * there. Use with {@code @ExtendWith(PrivateRoot.class)}; the root is deleted after the test.
 */
final class PrivateRoot implements BeforeEachCallback, AfterEachCallback {
    private static final String PROPERTY = "sharray.tempFolder";
    private String before;
    private Path root;

    @Override
    public void beforeEach(ExtensionContext context) throws Exception {
        root = Files.createTempDirectory("sharray-private-root");
        before = System.getProperty(PROPERTY);
        System.setProperty(PROPERTY, root.toString());
    }

    @Override
    public void afterEach(ExtensionContext context) {
        if (before == null) {
            System.clearProperty(PROPERTY);
        } else {
            System.setProperty(PROPERTY, before);
        }
        Reaper.deleteTree(root);
    }
}
