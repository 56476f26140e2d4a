package dev.sharray.pool;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import java.nio.file.Files;
import java.nio.file.Path;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;

/** Compiles a class of a test's own at run time, for classes only some JVMs or loaders may see. */
final class ProbeClasses {
    private ProbeClasses() {
    }

    /**
     * @param dir       a folder of the test's, for the source and the classes
     * @param name      the class's name in package {@code probe}, such as {@code Extra}
     * @param source    its whole source
     * @param classpath what it compiles against, or "" for nothing but the JDK
     * @return the folder holding {@code probe/<name>.class}
     */
    static Path compile(Path dir, String name, String source, String classpath) throws Exception {
        final JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        assertNotNull(javac, "tests run on a JDK");
        final Path file = Files.createDirectories(dir.resolve("src/probe")).resolve(name + ".java");
        Files.writeString(file, source);
        final Path classes = Files.createDirectories(dir.resolve("classes"));
        assertEquals(0, javac.run(null, null, null, "-d", classes.toString(), "-cp", classpath, file.toString()));
        return classes;
    }
}
