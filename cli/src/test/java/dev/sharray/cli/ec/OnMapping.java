package dev.sharray.cli.ec;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Changes a file while the ec commands have it mapped, through their test hook {@link Mapped#afterMapping}: a test
 * that extends with this class has the hook cleared after it.
 */
final class OnMapping implements AfterEachCallback {
    /** Runs {@code change} once, right after the {@code n}-th mapping of any file from now. */
    static void change(int n, Runnable change) {
        AtomicInteger mappings = new AtomicInteger();
        Mapped.afterMapping = () -> {
            if (mappings.incrementAndGet() == n) {
                change.run();
            }
        };
    }

    /** @return a new file {@code dir/name} of {@code size} bytes from a random generator seeded with {@code seed} */
    static Path randomFile(Path dir, String name, int size, long seed) throws IOException {
        byte[] bytes = new byte[size];
        new Random(seed).nextBytes(bytes);
        return Files.write(dir.resolve(name), bytes);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        Mapped.afterMapping = null;
    }
}
