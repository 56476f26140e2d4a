package dev.sharray;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A group-writable folder counts as the user's own only for a group nobody else can be in. The first rule took any
 * group named like the user: the second security review added the attacker to it ({@code usermod -aG alice
 * mallory}) and ran their code in the victim's worker again.
 */
class UserPrivateGroupTest {
    private static final List<String> ACCOUNTS = List.of("root:x:0:0:root:/root:/bin/bash",
        "alice:x:1001:1001::/home/alice:/bin/bash", "mallory:x:1002:1002::/home/mallory:/bin/bash");

    @Test
    void aGroupOfTheUsersNameWithNoOtherMemberIsPrivate() {
        assertEquals(1001, UserPrivateGroup.privateGid("alice", List.of("root:x:0:", "alice:x:1001:"), ACCOUNTS));
    }

    @Test
    void aMemberOrAnotherAccountsPrimaryGroupMakesItShared() {
        assertEquals(-1, UserPrivateGroup.privateGid("alice", List.of("alice:x:1001:mallory"), ACCOUNTS));
        assertEquals(-1, UserPrivateGroup.privateGid("alice", List.of("alice:x:1001:"),
            List.of("alice:x:1001:1001::/:/bin/sh", "bob:x:1003:1001::/:/bin/sh")));
    }

    @Test
    void aGroupThatIsNotThereOrNotTheUsersIsNotPrivate() {
        assertEquals(-1, UserPrivateGroup.privateGid("alice", List.of("root:x:0:"), ACCOUNTS)); // LDAP, say
        assertEquals(-1, UserPrivateGroup.privateGid("alice", List.of("alice:x:1001:"),
            List.of("alice:x:1001:100::/:/bin/sh"))); // named like her, but not her primary group
        assertEquals(-1, UserPrivateGroup.privateGid("alice", List.of("alice:x:x:"), ACCOUNTS));
    }
}
