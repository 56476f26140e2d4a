package dev.sharray.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Finds the repository's docs/ folder and extracts fenced code blocks from its pages; other modules' doc tests
 * use it through the test-jar.
 */
public final class DocFiles {
    private DocFiles() {
    }

    /** @return the repository root (from -Dsharray.root, else searched upwards) */
    public static Path root() {
        String configured = System.getProperty("sharray.root");
        Path p = configured != null ? Path.of(configured) : Path.of("").toAbsolutePath();
        for (Path q = p.toAbsolutePath(); q != null; q = q.getParent()) {
            if (Files.isDirectory(q.resolve("docs")) && Files.exists(q.resolve("pom.xml"))
                && Files.isDirectory(q.resolve("shared-array"))) {
                return q;
            }
        }
        throw new IllegalStateException("cannot find the repository root from " + p);
    }

    /** The first fenced block of {@code language} after the line containing {@code marker}. */
    public static String block(String page, String marker, String language) throws IOException {
        String text = Files.readString(root().resolve("docs").resolve(page));
        int m = text.indexOf(marker);
        if (m < 0) {
            throw new AssertionError("docs/" + page + " has no marker " + marker);
        }
        int start = text.indexOf("```" + language + "\n", m);
        if (start < 0) {
            throw new AssertionError("docs/" + page + " has no ```" + language + " block after " + marker);
        }
        start += language.length() + 4;
        int end = text.indexOf("\n```", start);
        return text.substring(start, end + 1);
    }

    /** Source of a test file, relative to the repository root. */
    public static String source(String relative) throws IOException {
        return Files.readString(root().resolve(relative));
    }
}
