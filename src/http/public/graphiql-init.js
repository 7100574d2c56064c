// Starts Yoga's GraphiQL with the options the server embedded in the page. Monaco's settings must
// exist before its code loads; its workers come from the same server as the page.
const workers = {
  editorWorkerService: '/assets/graphiql/editor.worker.js',
  json: '/assets/graphiql/json.worker.js',
  graphql: '/assets/graphiql/graphql.worker.js',
};
self.MonacoEnvironment = {
  globalAPI: false,
  getWorkerUrl: (_moduleId, label) => workers[label] ?? workers.editorWorkerService,
};

const script = document.createElement('script');
script.src = '/assets/graphiql/yoga-graphiql.js';
script.onload = () => {
  const options = JSON.parse(document.getElementById('graphiql-options').textContent);
  YogaGraphiQL.renderYogaGraphiQL(document.getElementById('graphiql'), options);
};
document.body.append(script);
