claude mcp add --transport stdio filesystem \
  --env ASKGATE_URL=http://127.0.0.1:7420 \
  --env ASKGATE_API_TOKEN=<token> \
  --env ASKGATE_DEFAULT_TO=telegram:123456 \
  -- npx askgate mcp-proxy --upstream "npx -y @modelcontextprotocol/server-filesystem /path/to/project" --approve-destructive --approve move_file
