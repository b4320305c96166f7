"""Every GraphQL document the double's tests send; the fidelity test validates each one against
GitHub's published schema (and the double validates whatever it receives, when it has it)."""

from __future__ import annotations

VIEWER = "query { viewer { login } }"

# Everything a perfbot run reads, in one query: the shape of the live adapter's read.
RUN = """
query Run($owner: String!, $name: String!, $branch: String!, $snapshot: String!, $page: String!) {
  rateLimit { cost remaining resetAt }
  viewer { login }
  repository(owner: $owner, name: $name) {
    nameWithOwner
    defaultBranchRef { name target { oid ... on Commit { tree { oid } } } }
    snapshot: object(expression: $snapshot) { ... on Blob { text isTruncated oid } }
    page: object(expression: $page) { ... on Blob { text isTruncated oid } }
    pullRequests(headRefName: $branch, states: [OPEN], first: 1) {
      nodes {
        number state title body headRefOid headRefName baseRefName baseRefOid
        commits(last: 100) { totalCount nodes { commit { oid author { name email user { login } } } } }
      }
    }
    i8325: issue(number: 8325) { ...Tracked }
    i9420: issue(number: 9420) { ...Tracked }
  }
}
fragment Tracked on Issue {
  number title state stateReason
  assignees(first: 10) { nodes { login } }
  labels(first: 20) { nodes { name } }
  comments(first: 100) {
    pageInfo { hasNextPage endCursor }
    totalCount
    nodes {
      fullDatabaseId
      author { __typename login }
      createdAt lastEditedAt body
      reactionGroups { content viewerHasReacted reactors { totalCount } }
    }
  }
}
"""

COMMENTS_PAGE = """
query Page($owner: String!, $name: String!, $number: Int!, $after: String) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) {
      comments(first: 2, after: $after) {
        pageInfo { hasNextPage endCursor }
        totalCount
        nodes { fullDatabaseId author { __typename login } body }
      }
    }
  }
}
"""

ISSUE_IDS = """
query Ids($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) { comments(first: 100) { nodes { fullDatabaseId } } }
  }
}
"""

DATABASE_IDS = """
query Legacy($owner: String!, $name: String!, $number: Int!) {
  repository(owner: $owner, name: $name) {
    issue(number: $number) { comments(first: 100) { nodes { databaseId } } }
  }
}
"""

MISSING_ISSUE = """
query Missing($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) {
    present: issue(number: 8325) { number }
    absent: issue(number: 99999) { number }
  }
}
"""

MISSING_REPOSITORY = 'query { repository(owner: "nobody", name: "nothing") { nameWithOwner } }'

TOO_MANY = """
query TooMany($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) { issue(number: 8325) { comments(first: 101) { nodes { body } } } }
}
"""

UNBOUNDED = """
query Unbounded($owner: String!, $name: String!) {
  repository(owner: $owner, name: $name) { issue(number: 8325) { comments { totalCount nodes { body } } } }
}
"""

OBJECT = """
query Object($owner: String!, $name: String!, $expression: String!) {
  repository(owner: $owner, name: $name) {
    object(expression: $expression) {
      __typename oid
      ... on Blob { text byteSize isBinary isTruncated }
      ... on Commit { message parents(first: 2) { nodes { oid } } tree { oid } }
    }
  }
}
"""

REF = """
query Ref($owner: String!, $name: String!, $qualifiedName: String!) {
  repository(owner: $owner, name: $name) { ref(qualifiedName: $qualifiedName) { name prefix target { oid } } }
}
"""

PULLS = """
query Pulls($owner: String!, $name: String!, $branch: String!, $states: [PullRequestState!]) {
  repository(owner: $owner, name: $name) {
    pullRequests(headRefName: $branch, states: $states, first: 10) {
      totalCount
      nodes { number state title body headRefOid headRefName baseRefName }
    }
  }
}
"""

COMMIT_ON_BRANCH = """
mutation Commit($input: CreateCommitOnBranchInput!) {
  createCommitOnBranch(input: $input) {
    clientMutationId
    commit { oid message author { user { login } } }
    ref { name target { oid } }
  }
}
"""

# The issues changed since a time, oldest change first: the incremental read's window.
CHANGED_SINCE = """
query Changed($owner: String!, $name: String!, $since: DateTime!, $direction: OrderDirection!) {
  repository(owner: $owner, name: $name) {
    issues(filterBy: {since: $since}, orderBy: {field: UPDATED_AT, direction: $direction}, first: 100) {
      pageInfo { hasNextPage endCursor }
      nodes { number updatedAt state }
    }
  }
}
"""

UNKNOWN_FIELD = "query { viewer { login favouriteColour } }"

DOCUMENTS = {
    name: value
    for name, value in dict(globals()).items()
    if name.isupper() and isinstance(value, str) and name not in ("UNKNOWN_FIELD",)
}
