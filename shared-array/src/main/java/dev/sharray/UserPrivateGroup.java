package dev.sharray;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/**
 * Whether a group is this user's private group: with umask 002 (the user private group scheme of Debian, Ubuntu and
 * Fedora) a user's own folders are group-writable for a group of the user's name. That group is the user's alone
 * only while it has no member in {@code /etc/group} and no other account has it as its primary group: a user who
 * adds another to it ({@code usermod -aG alice bob}) lets them write there. A group known only to another name
 * service (LDAP) cannot be checked, and is taken for shared.
 */
final class UserPrivateGroup {
    /** This process's user's private group, or -1 when it has none by the rule above: read once. */
    private static final long PRIVATE_GID = privateGid();

    private UserPrivateGroup() {
    }

    /**
     * @param gid a folder's group
     * @return whether only this user can be in it
     */
    static boolean isPrivate(int gid) {
        return gid == PRIVATE_GID;
    }

    private static long privateGid() {
        try {
            return privateGid(System.getProperty("user.name"), Files.readAllLines(Path.of("/etc/group")),
                Files.readAllLines(Path.of("/etc/passwd")));
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * @param user     the user's name
     * @param groups   the lines of {@code /etc/group}
     * @param accounts the lines of {@code /etc/passwd}
     * @return the gid of the user's private group, or -1 when it has none
     */
    static long privateGid(String user, List<String> groups, List<String> accounts) {
        long gid = -1;
        for (String line : groups) {
            final String[] f = line.split(":", -1); // name:password:gid:members
            if (f.length == 4 && f[0].equals(user)) {
                if (!f[3].isEmpty()) {
                    return -1; // members besides the accounts whose primary group it is
                }
                try {
                    gid = Long.parseLong(f[2]);
                } catch (NumberFormatException e) {
                    return -1;
                }
            }
        }
        if (gid < 0) {
            return -1;
        }
        boolean own = false;
        for (String line : accounts) {
            final String[] f = line.split(":", -1); // name:password:uid:gid:...
            if (f.length >= 4 && f[3].equals(Long.toString(gid))) {
                if (!f[0].equals(user)) {
                    return -1; // another account's primary group too
                }
                own = true;
            }
        }
        return own ? gid : -1;
    }
}
