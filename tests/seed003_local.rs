//! Seed 003's blog end to end against DynamoDB Local (started by the
//! testkit, or `DYNAMODB_ENDPOINT`): users, posts, comments with reactions,
//! post tags in both directions, published posts through `gsi1`, with exact
//! expected results.

use aws_sdk_dynamodb::Client;
use dynamodb_mapper::expr::{Apply, KeyCondition, attr};
use dynamodb_mapper::ops::Table;
use dynamodb_mapper::{MapperExt, PartitionView, key::AllowedOverlap};
use dynamodb_mapper_support::local::{self, query, raw_items, read_all};
use dynamodb_mapper_support::problems;
use dynamodb_mapper_support::seed003::*;
use futures_util::TryStreamExt;

async fn setup(prefix: &str) -> (Client, String, DataSet) {
    let data = data_set();
    let (client, table, written) =
        local::table_with_items(prefix, BLOG_TABLE, data.items().unwrap()).await;
    assert_eq!(
        (written.items, written.requests, written.retries),
        (17, 1, 0)
    );
    (client, table, data)
}

const COMMENT_TO_REACTION: &str = "table: begins_with(sort key, \"COMMENT#\") for Comment (sort key \
    `COMMENT#{comment_id}`) also returns Reaction items (sort key \
    `COMMENT#{comment_id}#REACTION#{reaction_id}`); their partition keys `POST#{post_id}` and \
    `POST#{post_id}` can be equal";
const REACTION_TO_COMMENT: &str = "table: begins_with(sort key, \"COMMENT#\") for Reaction (sort \
    key `COMMENT#{comment_id}#REACTION#{reaction_id}`) also returns Comment items (sort key \
    `COMMENT#{comment_id}`); their partition keys `POST#{post_id}` and `POST#{post_id}` can be \
    equal";

#[test]
fn the_blog_has_one_intended_overlap_comments_and_their_reactions() {
    // Without the acknowledgement, building reports exactly that overlap,
    // both ways, and nothing else.
    assert_eq!(
        problems(&builder().build().unwrap_err()),
        [COMMENT_TO_REACTION, REACTION_TO_COMMENT]
    );
    // One way acknowledged leaves the other; acknowledged on the index only
    // leaves both (they overlap on the table).
    assert_eq!(
        problems(
            &builder()
                .allow_overlap(AllowedOverlap::new("Comment", "Reaction"))
                .build()
                .unwrap_err()
        ),
        [REACTION_TO_COMMENT]
    );
    assert_eq!(
        problems(
            &builder()
                .allow_overlap(
                    AllowedOverlap::new("Comment", "Reaction")
                        .both_ways()
                        .on_index("gsi1")
                )
                .build()
                .unwrap_err()
        ),
        [COMMENT_TO_REACTION, REACTION_TO_COMMENT]
    );
    let registry = registry().unwrap();
    assert_eq!(
        registry.entity_types(),
        ["User", "Post", "Comment", "Reaction", "PostTag"]
    );
    assert_eq!(
        registry.group("Thread").unwrap().entity_types(),
        ["Comment", "Reaction"]
    );

    // Keys as the seed writes them.
    let data = data_set();
    let item = PostMapper::to_item(&data.posts[0]).unwrap();
    let key = |name: &str| item[name].as_s().unwrap().as_str();
    assert_eq!(
        [key("PK"), key("SK"), key("GSI1PK"), key("GSI1SK")],
        [
            "USER#alice",
            "POST#01HMQ00001",
            "POST",
            "STATUS#true#01HMQ00001"
        ]
    );
}

#[tokio::test]
async fn every_blog_access_pattern() {
    let (c, t, data) = setup("seed003-access").await;
    let registry = registry().unwrap();
    let user_partition = |name: &str| partition(USER_PK, "username", name).unwrap();
    let post_partition = |id: &str| partition(POST_PK, "post_id", id).unwrap();

    // 1. Get user profile.
    let key = UserMapper::string_key("USER#alice", "USER#alice").unwrap();
    assert_eq!(key, UserMapper::key(&data.users[0]).unwrap());
    let alice = local::get_item(&c, &t, key)
        .await
        .map(UserMapper::from_item)
        .transpose()
        .unwrap();
    assert_eq!(alice, Some(data.users[0].clone()));

    // 2. All posts by a user, drafts included, in post id (time) order.
    let posts = read_all::<PostMapper>(
        query(
            &c,
            &t,
            user_partition("alice").and(attr("SK").begins_with(POST_SK.bind().prefix().unwrap())),
        )
        .unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(posts, data.posts[..2]);

    // 3. All comments on a post. The comment prefix reads the thread, the
    //    reactions under each comment included: read as comments only, the
    //    discriminator refuses the first reaction...
    let thread = || {
        query(
            &c,
            &t,
            post_partition(OWNERSHIP)
                .and(attr("SK").begins_with(COMMENT_SK.bind().prefix().unwrap())),
        )
        .unwrap()
    };
    let err = read_all::<CommentMapper>(thread()).await.unwrap_err();
    assert_eq!(
        err.to_string(),
        "Comment (PK=\"POST#01HMQ00001\", SK=\"COMMENT#01HMT00001#REACTION#01HMU00001\"): \
         discriminator `entityType` is \"Reaction\", expected \"Comment\""
    );
    // ...a discriminator filter returns the comments (after reading all four)...
    let out = thread()
        .apply(registry.filter(&["Comment"]).unwrap())
        .unwrap()
        .send()
        .await
        .unwrap();
    assert_eq!((out.scanned_count, out.count), (4, 2));
    let comments: Vec<Comment> = out
        .items
        .unwrap_or_default()
        .into_iter()
        .map(|i| CommentMapper::from_item(i).unwrap())
        .collect();
    assert_eq!(comments, data.comments[..2]);
    // ...and the thread group reads each reaction under its comment.
    let thread_group = registry.group("Thread").unwrap();
    let items = raw_items(thread()).await.unwrap();
    let decoded = thread_group.decode_all(items).unwrap();
    assert!(decoded.is_complete());
    assert_eq!(
        decoded.entities,
        [
            BlogItem::Comment(data.comments[0].clone()),
            BlogItem::Reaction(data.reactions[0].clone()),
            BlogItem::Reaction(data.reactions[1].clone()),
            BlogItem::Comment(data.comments[1].clone()),
        ]
    );
    //    The reactions to one comment: the pattern's prefix with the comment bound.
    let prefix = REACTION_SK
        .with("comment_id", "01HMT00001")
        .prefix()
        .unwrap();
    assert_eq!(prefix, "COMMENT#01HMT00001#REACTION#");
    let reactions = read_all::<ReactionMapper>(
        query(
            &c,
            &t,
            post_partition(OWNERSHIP).and(attr("SK").begins_with(prefix)),
        )
        .unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(reactions, data.reactions);

    // 4. All published posts (gsi1), and the drafts.
    let by_status = |published: &str| {
        let key = KeyCondition::new(BLOG_TABLE, POSTS_PK.bind().render().unwrap())
            .on_index("gsi1")
            .and(
                attr("GSI1SK").begins_with(
                    POST_STATUS_SK
                        .with("published", published)
                        .prefix()
                        .unwrap(),
                ),
            );
        let q = query(&c, &t, key).unwrap();
        async move { read_all::<PostMapper>(q).await.unwrap() }
    };
    assert_eq!(
        by_status("true").await,
        [data.posts[0].clone(), data.posts[2].clone()]
    );
    assert_eq!(by_status("false").await, [data.posts[1].clone()]);

    // 5. All comments by a user (gsi1).
    let by_user = |name: &str| {
        let q = query(&c, &t, user_partition(name).on_index("gsi1")).unwrap();
        async move { read_all::<CommentMapper>(q).await.unwrap() }
    };
    assert_eq!(by_user("alice").await, [data.comments[2].clone()]);
    assert_eq!(by_user("bob").await, [data.comments[0].clone()]);
    assert_eq!(by_user("carol").await, [data.comments[1].clone()]);

    // 6. All posts with a tag (gsi1), and all tags of a post (table).
    let tagged = read_all::<PostTagMapper>(
        query(
            &c,
            &t,
            partition(TAG_PK, "tag", "rust").unwrap().on_index("gsi1"),
        )
        .unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(
        tagged,
        [
            post_tag(OWNERSHIP, "rust"),
            post_tag(ASYNC_TRAITS, "rust"),
            post_tag(SINGLE_TABLE, "rust"),
        ]
    );
    let tags = read_all::<PostTagMapper>(
        query(
            &c,
            &t,
            post_partition(OWNERSHIP).and(attr("SK").begins_with(TAG_SK.bind().prefix().unwrap())),
        )
        .unwrap(),
    )
    .await
    .unwrap();
    assert_eq!(
        tags,
        [
            post_tag(OWNERSHIP, "ownership"),
            post_tag(OWNERSHIP, "rust")
        ]
    );

    // The post partition, as the seed draws it.
    let items = raw_items(query(&c, &t, post_partition(OWNERSHIP)).unwrap())
        .await
        .unwrap();
    let view = format!("{:.200}", PartitionView::new(&BLOG_TABLE, &items));
    println!("{view}");
    let lines: Vec<&str> = view.lines().collect();
    assert_eq!(lines.len(), 2 + 6);
    assert_eq!(
        lines[0],
        "PK              | SK                                     | entityType | attributes"
    );
    assert_eq!(
        lines[2],
        "POST#01HMQ00001 | COMMENT#01HMT00001                     | Comment    | GSI1PK=USER#bob GSI1SK=COMMENT#01HMT00001 commentId=01HMT00001 content=Great post! postId=01HMQ00001 username=bob"
    );
    assert_eq!(
        lines[3],
        "                | COMMENT#01HMT00001#REACTION#01HMU00001 | Reaction   | commentId=01HMT00001 emoji=👍 postId=01HMQ00001 reactionId=01HMU00001 username=alice"
    );
    assert_eq!(
        lines[7],
        "                | TAG#rust                               | PostTag    | GSI1PK=TAG#rust GSI1SK=POST#01HMQ00001 postId=01HMQ00001 tag=rust"
    );
}

#[tokio::test]
async fn user_and_post_pages_each_from_one_query() {
    let (c, t, data) = setup("seed003-pages").await;
    let registry = registry().unwrap();

    // A user page: PK = USER#alice holds the profile and the posts.
    let items = raw_items(query(&c, &t, partition(USER_PK, "username", "alice").unwrap()).unwrap())
        .await
        .unwrap();
    let mut parts = registry.buckets(items);
    let profile = parts.one::<UserMapper>().unwrap();
    let posts = parts.many::<PostMapper>().unwrap();
    parts.finish().unwrap();
    assert_eq!(profile, data.users[0]);
    assert_eq!(posts, data.posts[..2]);

    // A post page: PK = POST#<id> holds comments, reactions and tags.
    let items =
        raw_items(query(&c, &t, partition(POST_PK, "post_id", OWNERSHIP).unwrap()).unwrap())
            .await
            .unwrap();
    let mut parts = registry.buckets(items);
    let comments = parts.many::<CommentMapper>().unwrap();
    let reactions = parts.many::<ReactionMapper>().unwrap();
    // What is left is the tags alone.
    let err = parts.clone().finish().unwrap_err();
    let dynamodb_mapper::ErrorDetails::UnclaimedItems { counts, .. } = err.details() else {
        panic!("every item claimed")
    };
    assert_eq!(counts, &[(Some("PostTag".to_string()), 2)]);
    let tags = parts.many::<PostTagMapper>().unwrap();
    parts.finish().unwrap();
    assert_eq!(comments, data.comments[..2]);
    assert_eq!(reactions, data.reactions);
    assert_eq!(
        tags,
        [
            post_tag(OWNERSHIP, "ownership"),
            post_tag(OWNERSHIP, "rust")
        ]
    );

    // Every item of bob's post partition through the registry as a stream.
    let decoded: Vec<BlogItem> = Table::new(&c, &t, BLOG_TABLE)
        .query_stream(
            query(&c, &t, partition(POST_PK, "post_id", SINGLE_TABLE).unwrap()).unwrap(),
            &registry,
        )
        .map_ok(|d| d.into_entity().expect("an entity"))
        .try_collect()
        .await
        .unwrap();
    assert_eq!(
        decoded,
        [
            BlogItem::Comment(data.comments[2].clone()),
            BlogItem::PostTag(post_tag(SINGLE_TABLE, "dynamodb")),
            BlogItem::PostTag(post_tag(SINGLE_TABLE, "rust")),
        ]
    );
}

#[tokio::test]
async fn tags_both_ways_publishing_and_unique_usernames() {
    let (c, t, data) = setup("seed003-writes").await;
    let posts_with = |tag: &str| {
        let q = query(
            &c,
            &t,
            partition(TAG_PK, "tag", tag).unwrap().on_index("gsi1"),
        )
        .unwrap();
        async move {
            read_all::<PostTagMapper>(q)
                .await
                .unwrap()
                .into_iter()
                .map(|t| t.post_id)
                .collect::<Vec<_>>()
        }
    };
    let tags_of = |post_id: &str| {
        let q = query(
            &c,
            &t,
            partition(POST_PK, "post_id", post_id)
                .unwrap()
                .and(attr("SK").begins_with(TAG_SK.bind().prefix().unwrap())),
        )
        .unwrap();
        async move {
            read_all::<PostTagMapper>(q)
                .await
                .unwrap()
                .into_iter()
                .map(|t| t.tag)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(posts_with("dynamodb").await, [SINGLE_TABLE]);
    assert_eq!(tags_of(OWNERSHIP).await, ["ownership", "rust"]);

    // One put of the join item writes both directions...
    let tag = post_tag(OWNERSHIP, "dynamodb");
    local::put_item(&c, &t, PostTagMapper::to_item(&tag).unwrap()).await;
    assert_eq!(posts_with("dynamodb").await, [OWNERSHIP, SINGLE_TABLE]);
    assert_eq!(tags_of(OWNERSHIP).await, ["dynamodb", "ownership", "rust"]);
    // ...and one delete removes both.
    c.delete_item()
        .table_name(&t)
        .set_key(Some(PostTagMapper::key(&tag).unwrap()))
        .send()
        .await
        .unwrap();
    assert_eq!(posts_with("dynamodb").await, [SINGLE_TABLE]);
    assert_eq!(tags_of(OWNERSHIP).await, ["ownership", "rust"]);

    // A tag holding the delimiter is escaped in both keys, and found both ways.
    let sharp = post_tag(OWNERSHIP, "c#");
    let item = PostTagMapper::to_item(&sharp).unwrap();
    assert_eq!(item["SK"].as_s().unwrap(), r"TAG#c\#");
    assert_eq!(item["GSI1PK"].as_s().unwrap(), r"TAG#c\#");
    local::put_item(&c, &t, item).await;
    assert_eq!(posts_with("c#").await, [OWNERSHIP]);
    assert_eq!(posts_with("c").await, Vec::<String>::new());
    assert_eq!(tags_of(OWNERSHIP).await, ["c#", "ownership", "rust"]);

    // Publishing the draft moves it within gsi1: the mapper rewrites GSI1SK.
    let published = || {
        let key = KeyCondition::new(BLOG_TABLE, "POST").on_index("gsi1").and(
            attr("GSI1SK").begins_with(POST_STATUS_SK.with("published", "true").prefix().unwrap()),
        );
        let q = query(&c, &t, key).unwrap();
        async move {
            read_all::<PostMapper>(q)
                .await
                .unwrap()
                .into_iter()
                .map(|p| p.post_id)
                .collect::<Vec<_>>()
        }
    };
    assert_eq!(published().await, [OWNERSHIP, SINGLE_TABLE]);
    let mut draft = data.posts[1].clone();
    draft.published = true;
    local::put_item(&c, &t, PostMapper::to_item(&draft).unwrap()).await;
    assert_eq!(published().await, [OWNERSHIP, ASYNC_TRAITS, SINGLE_TABLE]);

    // Usernames are unique: creating a user is conditional on its key being free.
    let create = |u: &User| {
        c.put_item()
            .table_name(&t)
            .set_item(Some(UserMapper::to_item(u).unwrap()))
            .apply(attr("PK").not_exists())
            .unwrap()
            .send()
    };
    let impostor = user("alice", "Another Alice", None);
    let err = create(&impostor).await.unwrap_err().into_service_error();
    assert!(err.is_conditional_check_failed_exception(), "{err:?}");
    let dave = user("dave", "Dave Grohl", Some("Drums."));
    create(&dave).await.unwrap();
    let alice = local::get_item(&c, &t, UserMapper::key(&impostor).unwrap())
        .await
        .map(UserMapper::from_item)
        .transpose()
        .unwrap();
    assert_eq!(alice, Some(data.users[0].clone()));
}
