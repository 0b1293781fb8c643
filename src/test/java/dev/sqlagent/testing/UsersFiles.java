package dev.sqlagent.testing;

import dev.sqlagent.users.Users;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Users files for tests: the tokens given, stored as the service stores them (their SHA-256). */
public final class UsersFiles {

  private UsersFiles() {}

  /** alice and bob, two users, and root, an admin: a temporary file the caller deletes. */
  public static Path aliceBobAndAdmin(String alice, String bob, String root) throws IOException {
    Path file = Files.createTempFile("sqlagent-users", ".yaml");
    Files.writeString(file, """
        users:
          - name: alice
            display_name: Alice
            token_sha256: %s
          - name: bob
            display_name: Bob
            token_sha256: %s
          - name: root
            display_name: The Admin
            token_sha256: %s
            admin: true
        """.formatted(Users.sha256Hex(alice), Users.sha256Hex(bob), Users.sha256Hex(root)));
    return file;
  }
}
