package dev.sharray.pool;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * sharray's classes loaded from no jar or folder: a Spring Boot executable jar's loader (nested jars) is told how to
 * give the workers plain jars; the advice used to be only "give the workers' classpath with
 * ProcessPool.Builder.classpath", which worked only with each extracted jar listed (the deploy review, F6).
 */
class NoJarOrFolderMessageTest {
    @Test
    void aSpringBootLoaderIsToldToExtractTheJar() {
        for (String loader : new String[] {"org.springframework.boot.loader.launch.LaunchedClassLoader",
            "org.springframework.boot.loader.LaunchedURLClassLoader"}) { // Boot 3.2+, and 2.x to 3.1
            final String m = WorkersClasspath.noJarOrFolder(loader + "@1b2c3d", loader);
            assertTrue(m.startsWith("the pool's workers cannot be given sharray's classes: " + loader + "@1b2c3d loaded"
                + " them from no jar or folder: this is a Spring Boot executable jar"), m);
            assertTrue(m.contains("java -Djarmode=tools -jar app.jar extract") && m.contains("BOOT-INF/classes")
                && m.contains("BOOT-INF/lib/*") && m.contains("ProcessPool.Builder.classpath"), m);
        }
    }

    @Test
    void anotherLoaderKeepsTheGeneralAdvice() {
        final String m = WorkersClasspath.noJarOrFolder("my.PluginLoader@1", "my.PluginLoader");
        assertEquals("the pool's workers cannot be given sharray's classes: my.PluginLoader@1 loaded them from no jar or"
            + " folder (a jar nested in another?); give the workers' classpath with ProcessPool.Builder.classpath", m);
        assertFalse(m.contains("Spring"), m);
    }
}
