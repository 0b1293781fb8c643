package dev.sqlagent.retrieval;

import static org.assertj.core.api.Assertions.assertThat;

import dev.sqlagent.catalogue.Catalogue;
import dev.sqlagent.catalogue.CatalogueHolder;
import dev.sqlagent.catalogue.CatalogueSnapshot;
import dev.sqlagent.notes.NotesFile;
import dev.sqlagent.testing.TestDatabase;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The catalogue version retrieval answers from: the notes are checked against the first, and later versions are
 * followed one at a time (a version that comes while the one before is still being embedded waits for it), an
 * older one changes nothing, and one of the same shape is only taken unless a refresh asked for it.
 */
class FollowedCatalogueTest {

  static Vertx vertx;
  static CatalogueHolder holder;

  @BeforeAll
  static void open() {
    vertx = Vertx.vertx();
    holder = CatalogueHolder.open(vertx, TestDatabase.get().target(), List.of());
  }

  @AfterAll
  static void close() throws Exception {
    holder.close().await(30, TimeUnit.SECONDS);
    vertx.close().await(30, TimeUnit.SECONDS);
  }

  static TableNotes targetNotes() {
    return TableNotes.forTarget(TestDatabase.get().config(java.util.Map.of()), TestDatabase.get().target().notesResource());
  }

  @Test
  void aNotesFileThatNamesWhatIsNotThereFailsTheStartBeforeAnythingIsBuilt() throws Exception {
    TableNotes notes = new TableNotes(NotesFile.parse("notes.yaml", """
        tables:
          no_such_table_anywhere: Nothing.
        """, NotesFile.Format.YAML));
    AtomicBoolean built = new AtomicBoolean();
    Future<Catalogue> started = new FollowedCatalogue(holder, notes).start(first -> {
      built.set(true);
      return Future.succeededFuture();
    });
    Throwable failed = started.transform(ar -> Future.succeededFuture(ar.cause())).await(60, TimeUnit.SECONDS);
    assertThat(failed).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("the notes file does not match the database").hasMessageContaining("no_such_table_anywhere");
    assertThat(built).isFalse();
  }

  @Test
  void versionsAreFollowedOneAtATimeAndOnlyANewShapeOrAnAskedForRefreshIsRebuiltFor() throws Exception {
    FollowedCatalogue followed = new FollowedCatalogue(holder, targetNotes());
    Promise<Void> firstBuild = Promise.promise();
    List<Catalogue> builtFor = new ArrayList<>();
    Catalogue first = followed.start(c -> {
      builtFor.add(c);
      return firstBuild.future();
    }).await(60, TimeUnit.SECONDS);
    assertThat(builtFor).containsExactly(first);
    assertThat(followed.current()).isSameAs(first);
    CatalogueSnapshot v1 = followed.snapshot();
    CatalogueSnapshot v2 = holder.refresh().await(60, TimeUnit.SECONDS);
    CatalogueSnapshot v3 = holder.refresh().await(60, TimeUnit.SECONDS);
    assertThat(List.of(v1.version(), v2.version(), v3.version())).isSorted().doesNotHaveDuplicates();
    assertThat(v2.fingerprint()).as("nothing changed in the database: the same shape").isEqualTo(v1.fingerprint());

    // A refresh asked for while the first build is under way waits for it, failed or not.
    List<Long> rebuiltAt = new ArrayList<>();
    Promise<Void> secondBuild = Promise.promise();
    Future<Void> toV2 = followed.follow(v2, true, c -> {
      rebuiltAt.add(followed.snapshot().version());
      builtFor.add(c);
      return secondBuild.future();
    });
    assertThat(followed.snapshot()).isSameAs(v1);
    assertThat(rebuiltAt).isEmpty();
    firstBuild.fail("the model could not load");
    assertThat(rebuiltAt).containsExactly(v2.version());
    assertThat(builtFor.get(1)).as("handed the version now followed, with the notes").isSameAs(followed.current())
        .isNotSameAs(first);
    assertThat(toV2.isComplete()).isFalse();

    // The same shape again, not asked for: taken after the rebuild in progress, and not rebuilt for.
    Future<Void> toV3 = followed.follow(v3, false, c -> {
      rebuiltAt.add(followed.snapshot().version());
      return Future.succeededFuture();
    });
    assertThat(followed.snapshot()).isSameAs(v2);
    secondBuild.complete();
    assertThat(toV2.succeeded()).isTrue();
    assertThat(toV3.succeeded()).isTrue();
    assertThat(followed.snapshot()).isSameAs(v3);
    assertThat(rebuiltAt).containsExactly(v2.version());

    // An older version, even asked for, changes nothing.
    assertThat(followed.follow(v2, true, c -> {
      rebuiltAt.add(followed.snapshot().version());
      return Future.succeededFuture();
    }).succeeded()).isTrue();
    assertThat(followed.snapshot()).isSameAs(v3);
    assertThat(rebuiltAt).containsExactly(v2.version());
  }
}
